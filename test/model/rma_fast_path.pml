/*
 * rma_fast_path.pml: the range lock across nodes with its fast path
 * (adio/lock_rma_range.cpp, adio/shard_claims.cpp), for spin.
 *
 * What is modelled, per shard (S = 2 shards, 4 byte cells, cells 0-1 in shard 0 and
 * 2-3 in shard 1, N = 3 or 4 processes, each looping forever over a menu of
 * requests, as range_lock.pml):
 *   - the mode word: IDLE, TABLE or FAST(p, n), and one claim per process (number,
 *     cells, mode) as it has landed in the home's memory;
 *   - the table (slots, tickets) and its mutex, the exclusive MPI_Win_lock epoch,
 *     which MPICH grants in the order the requests arrive: a queue here;
 *   - enter: the fast attempt writes the claim and compare-and-swaps IDLE ->
 *     FAST(me, n) in one flush, which lands them in either order; if the word was
 *     not IDLE: take the mutex; if the table is empty, swap the word to TABLE (a
 *     busy table's word is TABLE: asserted), and if it was FAST(h, n) wait until h's
 *     claim n has landed and enter h in the table granted; then take a ticket as in
 *     range_lock.pml, let the mutex go and wait for the grant;
 *   - leave: a fast holder compare-and-swaps FAST(me, n) -> IDLE; if the word had
 *     become TABLE, or the request entered through the table, leave through the
 *     table: free, grant in ticket order, IDLE once the table is empty.
 *
 * Abstractions, besides those of range_lock.pml (tickets as ranks, table updates
 * made directly under the mutex, futex and grant messages as guards):
 *   - Claim numbers. A reader of claim n (named by the word) only asks whether what
 *     it reads is claim n: in the code an earlier claim has another number and a
 *     claim read half landed fails its hash, and both are read again. So here a
 *     claim is either in (landed) or not, and the reader waits until it is in,
 *     which is what the retries do. A claim is cleared (not in, no cells) when
 *     nothing can read it any more: when its attempt failed, when its owner has
 *     released it fast or is leaving through the table (under the mutex, after the
 *     process that moved it in has read it).
 *     The word then needs no number either: FAST(p).
 *   - The mutex's arrival order is a channel of process ids: state only for who
 *     waits in which order, none for counters.
 *   - Steps that touch disjoint variables commute, so each mutex section is one
 *     step per wait in it: asking for the mutex, then (once it is ours) the swap, then
 *     (once the claim is in) the table work with the mutex's release. Setting the
 *     word back to IDLE and releasing the mutex share a step: the code waits for the
 *     first before the second, and no other step reads both.
 *
 * Checks (README.md): assertions in the critical section (per cell at most one
 * writer, no reader beside a writer); at every fast acquire and every move of a
 * fast holder into the table, that the table is empty; that a busy table's word is
 * TABLE; at every table leave, that the leaver is in the table; no invalid end state
 * (deadlock); LTL live0..live3 (a request is eventually granted) under weak fairness.
 *
 * Broken variants, each of which spin must catch:
 *   -DBROKEN_NO_MOVE       the table path swaps the word to TABLE but leaves a fast
 *                          holder out of the table (mutual exclusion)
 *   -DBROKEN_STALE_CLAIM   the fast holder's claim is read without waiting for
 *                          claim n: its previous extents are used (mutual exclusion)
 *   -DBROKEN_BLIND_RELEASE a fast holder writes IDLE instead of compare-and-swap, and
 *                          so never releases through the table (a fast acquire next
 *                          to a live table, or a waiter never granted)
 */

#ifndef N
#define N 3
#endif
#define S 2
#define CELLS 4

#define FREE    0
#define WAITING 1
#define GRANTED 2

#define READ  0
#define WRITE 1

/* The mode word. */
#define IDLE         0
#define TABLE        1
#define FAST(p)      (2 + (p))
#define IS_FAST(m)   ((m) >= 2)
#define HOLDER(m)    ((m) - 2)

#define SHARD_MASK(s)   (3 << (2 * (s)))   /* cells 2s and 2s+1 */
#define SLOT(s, p)      ((s) * N + (p))

byte mode[S];

/* Claims, as landed on the home rank. */
bit  claim_in[S * N];
byte claim_cells[S * N];
bit  claim_mode[S * N];

/* The tables, as in range_lock.pml. */
byte slot_state[S * N];
bit  slot_mode[S * N];
byte slot_rank[S * N];
byte slot_extents[S * N];
byte live_slots[S];

/* The tables' mutexes: who asked, in order; the head holds it. */
chan mutex_queue[S] = [N] of { byte };

/* Ghost state for the properties. */
byte writers_in_cs[CELLS];
byte readers_in_cs[CELLS];
bit  waiting[N];
bit  holding[N];

#define CONFLICT(a, b) \
  ((slot_extents[a] & slot_extents[b]) != 0 && \
   (slot_mode[a] == WRITE || slot_mode[b] == WRITE))

#define BLOCKS(other, me) \
  (slot_state[other] != FREE && slot_rank[other] < slot_rank[me] && CONFLICT(other, me))

inline find_blocker(s, me, blocked) {
  q = 0;
  blocked = false;
  do
  :: q < N ->
     if
     :: q != me && BLOCKS(SLOT(s, q), SLOT(s, me)) -> blocked = true
     :: else
     fi;
     q++
  :: else -> break
  od
}

/* The fast attempt's two operations; which lands first is up to the network. */
inline land_claim(s) {
  claim_in[SLOT(s, _pid)] = true;
  claim_cells[SLOT(s, _pid)] = request_cells & SHARD_MASK(s);
  claim_mode[SLOT(s, _pid)] = request_mode
}

inline swap_idle_to_fast(s) {
  if
  :: mode[s] == IDLE ->
     assert(live_slots[s] == 0);
     mode[s] = FAST(_pid);
     won = true
  :: else -> won = false
  fi
}

#define MUTEX_IS_MINE(s) mutex_queue[s]?[eval(_pid)]

inline ask_for_mutex(s) {
  mutex_queue[s]!_pid
}

inline release_mutex(s) {
  mutex_queue[s]?_
}

inline clear_claim(s) {
  claim_in[SLOT(s, _pid)] = false;
  claim_cells[SLOT(s, _pid)] = 0;
  claim_mode[SLOT(s, _pid)] = READ
}

/* Under the mutex, with the word swapped from FAST(h) and h's claim read: h enters
 * the table, granted, with the first ticket (the table was empty). */
inline move_in(s, h) {
  assert(live_slots[s] == 0);
  slot_state[SLOT(s, h)] = GRANTED;
  slot_mode[SLOT(s, h)] = claim_mode[SLOT(s, h)];
  slot_extents[SLOT(s, h)] = claim_cells[SLOT(s, h)];
  slot_rank[SLOT(s, h)] = 0;
  live_slots[s] = 1
}

/* Under the mutex: our slot with the next ticket, granted unless an earlier live
 * slot conflicts. */
inline enqueue(s) {
  slot_state[SLOT(s, _pid)] = WAITING;
  slot_mode[SLOT(s, _pid)] = request_mode;
  slot_rank[SLOT(s, _pid)] = live_slots[s];
  slot_extents[SLOT(s, _pid)] = request_cells & SHARD_MASK(s);
  live_slots[s]++;
  find_blocker(s, _pid, blocked);
  if
  :: !blocked -> slot_state[SLOT(s, _pid)] = GRANTED
  :: else
  fi;
  q = 0;
  blocked = false
}

/* Under the mutex: free our slot, renumber the later tickets, grant in ticket order
 * each waiter that nothing earlier conflicts with (as range_lock.pml). */
inline dequeue(s) {
  assert(slot_state[SLOT(s, _pid)] != FREE);   /* we are in the table we leave */
  q = 0;
  do
  :: q < N ->
     if
     :: slot_state[SLOT(s, q)] != FREE && slot_rank[SLOT(s, q)] > slot_rank[SLOT(s, _pid)] ->
        slot_rank[SLOT(s, q)]--
     :: else
     fi;
     q++
  :: else -> break
  od;
  slot_state[SLOT(s, _pid)] = FREE;
  slot_mode[SLOT(s, _pid)] = READ;
  slot_rank[SLOT(s, _pid)] = 0;
  slot_extents[SLOT(s, _pid)] = 0;
  live_slots[s]--;
  rank = 0;
  do
  :: rank < live_slots[s] ->
     w = 0;
     do
     :: w < N ->
        if
        :: slot_state[SLOT(s, w)] == WAITING && slot_rank[SLOT(s, w)] == rank ->
           find_blocker(s, w, blocked);
           if
           :: !blocked -> slot_state[SLOT(s, w)] = GRANTED
           :: else
           fi
        :: else
        fi;
        w++
     :: else -> break
     od;
     rank++
  :: else -> break
  od;
  q = 0; w = 0; rank = 0; blocked = false
}

/* Enter shard s; done once the request holds it, fast or granted in the table; with
 * cs, the critical section is entered in the same step. One step when the mutex
 * is free and no claim is awaited: the steps in between would be other processes'
 * fast-path steps, which commute with taking the mutex (see the header). */
inline enter(s, cs) {
  atomic {
    swap_idle_to_fast(s);
    if
    :: won
    :: else ->  /* our claim is never read (the word does not name us): the table */
       ask_for_mutex(s);
       MUTEX_IS_MINE(s);
       if
       :: live_slots[s] > 0 -> assert(mode[s] == TABLE)   /* no swap needed */
       :: else -> before = mode[s]; mode[s] = TABLE
       fi;
#ifndef BROKEN_STALE_CLAIM
       (!IS_FAST(before) || claim_in[SLOT(s, HOLDER(before))]);
#endif
#ifndef BROKEN_NO_MOVE
       if
       :: IS_FAST(before) -> move_in(s, HOLDER(before))
       :: else
       fi;
#endif
       enqueue(s);
       release_mutex(s);
       before = 0
    fi
  };
  /* The claim lands at the latest when the round trip ends, and only then does the
   * fast holder go on; in between, others may find the word naming us. */
  atomic {
    if
    :: won -> land_claim(s); fast_held[s] = true; won = false
    :: else -> slot_state[SLOT(s, _pid)] == GRANTED
    fi;
    if
    :: cs -> enter_critical_section()
    :: else
    fi
  }
}

/* Leave shard s; with cs, the critical section is left in the same step; with last,
 * the request is forgotten (it was the last shard). */
inline leave(s, cs, last) {
  atomic {
    if
    :: cs -> leave_critical_section()
    :: else
    fi;
    if
    :: fast_held[s] ->
       fast_held[s] = false;
#ifdef BROKEN_BLIND_RELEASE
       mode[s] = IDLE; released = true
#else
       if
       :: mode[s] == FAST(_pid) -> mode[s] = IDLE; released = true
       :: else -> assert(mode[s] == TABLE); released = false
       fi
#endif
    :: else -> released = false
    fi;
    if
    :: released -> released = false; clear_claim(s)
    :: else ->
       ask_for_mutex(s);
       MUTEX_IS_MINE(s);
       dequeue(s);
       clear_claim(s);   /* read by whoever moved us in, under this mutex */
       if
       :: live_slots[s] == 0 -> mode[s] = IDLE
       :: else
       fi;
       release_mutex(s)
    fi;
    if
    :: last -> request_cells = 0; request_mode = READ
    :: else
    fi
  }
}

inline enter_critical_section() {
  waiting[_pid] = false;
  holding[_pid] = true;
  c = 0;
  do
  :: c < CELLS ->
     if
     :: request_cells & (1 << c) ->
        if
        :: request_mode == WRITE -> writers_in_cs[c]++
        :: else -> readers_in_cs[c]++
        fi;
        assert(writers_in_cs[c] <= 1 && (writers_in_cs[c] == 0 || readers_in_cs[c] == 0))
     :: else
     fi;
     c++
  :: else -> break
  od;
  c = 0
}

inline leave_critical_section() {
  c = 0;
  do
  :: c < CELLS ->
     if
     :: request_cells & (1 << c) ->
        if
        :: request_mode == WRITE -> writers_in_cs[c]--
        :: else -> readers_in_cs[c]--
        fi
     :: else
     fi;
     c++
  :: else -> break
  od;
  c = 0;
  holding[_pid] = false
}

inline choose_mode() {
  if
  :: request_mode = READ
  :: request_mode = WRITE
  fi;
  waiting[_pid] = true
}

active [N] proctype client() {
  byte request_cells;
  bit request_mode;
  byte q, w, rank, c;
  bool blocked;
  bool fast_held[S];     /* we hold the shard by our claim, not by a table slot */
  bool won, released;
  byte before;

  do
  :: atomic {
       if
       :: request_cells = 1   /* cell 0 */
       :: request_cells = 2   /* cell 1 */
       fi;
       choose_mode()
     };
     enter(0, true);
     leave(0, true, true)
  :: atomic { request_cells = 4; choose_mode() };   /* cell 2 */
     enter(1, true);
     leave(1, true, true)
  :: atomic { request_cells = 6; choose_mode() };   /* cells 1-2, both shards in order */
     enter(0, false);
     enter(1, true);
     leave(0, true, false);
     leave(1, false, true)
  od
}

ltl live0 { [] (waiting[0] -> <> holding[0]) }
ltl live1 { [] (waiting[1] -> <> holding[1]) }
ltl live2 { [] (waiting[2] -> <> holding[2]) }
#if N > 3
ltl live3 { [] (waiting[3] -> <> holding[3]) }
#endif
