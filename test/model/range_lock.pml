/*
 * range_lock.pml: piox's byte-range reader/writer lock protocol, for spin.
 *
 * What is modelled (the C++ protocol, step for step):
 *   The file's bytes fall into regions, each region maps to one of S shards. A shard
 *   has a mutex, a ticket counter and one slot per process {state, mode, ticket,
 *   extents}. Two slots conflict when their extents overlap and one is WRITE.
 *   acquire(p, request) visits the shards the request touches in increasing order:
 *   under the shard's mutex it takes a ticket, fills its slot WAITING and grants it at
 *   once if no earlier-ticket live slot conflicts; then, outside the mutex, it blocks
 *   (futex) until its slot is GRANTED before going on to the next shard. release(p),
 *   per shard held, under the mutex: free the slot, then grant in ticket order every
 *   WAITING slot that no earlier-ticket live slot conflicts with.
 *
 * Size: N processes (3, or 4 with -DN=4), S = 2 shards, 4 byte cells, cells 0-1 in
 * shard 0 and cells 2-3 in shard 1. Each process loops forever: pick a request from
 * the menu in client() (read or write of cell 0, 1, 2 or of cells 1-2 across both
 * shards; cell 3 would add states and no new case), acquire, critical section, release.
 *
 * Abstractions, and why each is exact:
 *   - Tickets. The real next_ticket counter grows without bound; the model keeps the
 *     state finite by storing a slot's rank instead: how many live (non-FREE) slots of the shard
 *     took their ticket before it. Tickets are only ever compared between live slots,
 *     and a new ticket is always the largest, so rank order is ticket order. A new
 *     slot's rank is the shard's live count; release renumbers the later ranks down.
 *   - Mutex. Every access to a shard's slots happens under its mutex, except the
 *     waiter's read of its own state, so a locked section is one atomic step.
 *     Steps on different shards touch disjoint variables and commute.
 *   - Local steps. Choosing a request, returning from the futex wait (once GRANTED,
 *     only p itself changes its slot) and the ghost bookkeeping are invisible to the
 *     other processes, so each rides in the atomic step of the mutex section next to
 *     it. This cut the state space from 537k to 18k states (3 processes).
 *   - Futex wait. The blocking guard `state == GRANTED` is exactly what a correct
 *     futex loop gives: a wake cannot be lost because the futex re-checks the value.
 *     How long a waiter spins or yields before it sleeps (wait.h) is invisible here,
 *     and so is where the releaser issues the wake: it sets GRANTED under the mutex
 *     and wakes the sleeper after letting the mutex go, and a wake that arrives
 *     after the slot was granted, freed and reused is a spurious one the loop absorbs.
 *   - A FREE slot's stale fields are cleared, so equal protocol states are one state.
 *
 * Checks (see README.md): assertions in the critical section (per cell at most one
 * writer, no reader beside a writer), no invalid end state (deadlock), and the LTL
 * properties live0..live3 (a request is eventually granted) under weak fairness.
 *
 * Write combining (-DCOMBINE, issue 19's node-level combined writes, designed here
 * before the code; adio/lock_shm_range.cpp implements it). A combinable write (WRITE, its pieces and data posted in shared
 * memory before it queues) that is granted all its shards becomes a combiner: under
 * each shard's mutex it takes every WAITING combinable write whose whole request lies
 * inside its own, in ticket order, as long as no live request that is not taken,
 * ticketed between the combiner and it, conflicts with it. A taken slot stays in the
 * table (later conflicting requests still wait behind it) but is never granted. The
 * combiner writes its own pieces and the taken ones in one pass (one critical
 * section), then, at release, frees the taken slots with its own before granting.
 * A taken writer wakes to find its slot FREE: its write is done, it never holds.
 * Why a taken writer holds nothing: its request lies inside the combiner's, which
 * is granted everywhere, so it can only be waiting in its first shard.
 * Checked besides the above: served in queue order (no request is served, by its own
 * grant or taken, while an earlier-ticketed conflicting request of its shard still
 * waits untaken), a taken slot is never granted, and every request, taken or not, is
 * eventually served (holding[] also marks a taken writer's turn inside its combiner's
 * critical section).
 *
 * Broken variants, each of which spin must catch:
 *   -DBROKEN_ORDER    a two-shard request visits its shards in either order (deadlock)
 *   -DBROKEN_NO_CHECK acquire grants without looking at other slots (assertion)
 *   -DBROKEN_BARGING  conflicts are checked against GRANTED slots only, so a request
 *                     overtakes earlier waiters: safe, but a waiter can starve (liveness)
 *   -DCOMBINE -DBROKEN_TAKE_PAST  the combiner takes writes queued behind a conflicting
 *                     request it does not take (queue order assertion)
 *   -DCOMBINE -DBROKEN_TAKE_WIDER the combiner takes writes reaching outside its own
 *                     request (critical-section assertion)
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

#define SHARD_MASK(s)   (3 << (2 * (s)))   /* cells 2s and 2s+1 */
#define SLOT(s, p)      ((s) * N + (p))

byte slot_state[S * N];
bit  slot_mode[S * N];
byte slot_rank[S * N];     /* ticket order among the shard's live slots, see above */
byte slot_extents[S * N];  /* bit c set: the slot covers cell c */
byte live_slots[S];        /* how many slots of the shard are not FREE */

/* Ghost state for the properties. */
byte writers_in_cs[CELLS];
byte readers_in_cs[CELLS];
bit  waiting[N];           /* p asked for its request and does not hold it yet */
bit  holding[N];           /* p is in its critical section */
#ifdef COMBINE
byte slot_taken[S * N];   /* 1 + the combiner that took this waiting slot's write; 0 */
byte request_of[N];        /* p's whole request (cells), for the combiner's test */
bit  combinable[N];        /* p's request is a combinable write */
#endif

#define CONFLICT(a, b) \
  ((slot_extents[a] & slot_extents[b]) != 0 && \
   (slot_mode[a] == WRITE || slot_mode[b] == WRITE))

/* Which other slots may hold back slot `me`. The protocol: every live slot with an
 * earlier ticket. The barging variant only looks at granted ones. */
#ifdef BROKEN_BARGING
#define BLOCKS(other, me) \
  (slot_state[other] == GRANTED && CONFLICT(other, me))
#else
#define BLOCKS(other, me) \
  (slot_state[other] != FREE && slot_rank[other] < slot_rank[me] && CONFLICT(other, me))
#endif

/* blocked := some other slot of shard s blocks slot (s, me). */
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

/* Under mutex_s: take the next ticket, fill the slot, grant it if nothing earlier
 * conflicts. Called inside an atomic step. */
inline enqueue(s) {
  slot_state[SLOT(s, _pid)] = WAITING;
  slot_mode[SLOT(s, _pid)] = request_mode;
  slot_rank[SLOT(s, _pid)] = live_slots[s];
  slot_extents[SLOT(s, _pid)] = request_cells & SHARD_MASK(s);
  live_slots[s]++;
#ifdef BROKEN_NO_CHECK
  blocked = false;
#else
  find_blocker(s, _pid, blocked);
#endif
  if
  :: !blocked -> slot_state[SLOT(s, _pid)] = GRANTED
  :: else
  fi;
  q = 0;
  blocked = false
}

/* Under mutex_s: free slot (s, p) and renumber the later tickets. */
inline free_slot(s, p) {
  q = 0;
  do
  :: q < N ->
     if
     :: slot_state[SLOT(s, q)] != FREE && slot_rank[SLOT(s, q)] > slot_rank[SLOT(s, p)] ->
        slot_rank[SLOT(s, q)]--
     :: else
     fi;
     q++
  :: else -> break
  od;
  slot_state[SLOT(s, p)] = FREE;
  slot_mode[SLOT(s, p)] = READ;
  slot_rank[SLOT(s, p)] = 0;
  slot_extents[SLOT(s, p)] = 0;
  live_slots[s]--
}

#ifdef COMBINE
#define TAKEN(slot) (slot_taken[slot] != 0)
#define MINE(slot) (slot_taken[slot] == _pid + 1)
/* The combiner, at release: free the slots it took in shard s (their writes are
 * done; each owner wakes to find its slot FREE). */
inline free_taken(s) {
  w = 0;
  do
  :: w < N ->
     if
     :: MINE(SLOT(s, w)) -> slot_taken[SLOT(s, w)] = 0; free_slot(s, w)
     :: else
     fi;
     w++
  :: else -> break
  od
}
#else
#define TAKEN(slot) 0
#endif

/* Under mutex_s: free p's slot (and, for a combiner, the slots it took), renumber
 * the later tickets, then grant, in ticket order, each waiter that nothing earlier
 * conflicts with. Called inside a d_step. */
inline dequeue(s) {
#ifdef COMBINE
  free_taken(s);
#endif
  free_slot(s, _pid);
  rank = 0;
  do
  :: rank < live_slots[s] ->
     w = 0;
     do
     :: w < N ->
        if
        :: slot_state[SLOT(s, w)] == WAITING && !TAKEN(SLOT(s, w)) &&
           slot_rank[SLOT(s, w)] == rank ->
           find_blocker(s, w, blocked);
           if
           :: !blocked -> slot_state[SLOT(s, w)] = GRANTED   /* and futex-wake w */
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

#ifdef COMBINE
#ifdef BROKEN_TAKE_WIDER
#define FITS(w) ((request_of[w] & request_cells) != 0)
#else
#define FITS(w) ((request_of[w] & ~request_cells) == 0)
#endif

/* blocked := a live request of shard s that is not taken, ticketed between the
 * combiner (_pid) and w, conflicts with w: taking w would serve it out of order. */
inline passed_conflict(s, w, blocked) {
  q = 0;
  blocked = false;
#ifndef BROKEN_TAKE_PAST
  do
  :: q < N ->
     if
     :: q != w && slot_state[SLOT(s, q)] != FREE && !TAKEN(SLOT(s, q)) &&
        slot_rank[SLOT(s, q)] > slot_rank[SLOT(s, _pid)] &&
        slot_rank[SLOT(s, q)] < slot_rank[SLOT(s, w)] &&
        CONFLICT(SLOT(s, q), SLOT(s, w)) -> blocked = true
     :: else
     fi;
     q++
  :: else -> break
  od;
#endif
  q = 0
}

/* Under mutex_s, the combiner (granted everywhere): take, in ticket order, each
 * waiting combinable write inside its request that no untaken conflicting request
 * queued between them holds back. */
inline take(s) {
  rank = slot_rank[SLOT(s, _pid)] + 1;
  do
  :: rank < live_slots[s] ->
     w = 0;
     do
     :: w < N ->
        if
        :: w != _pid && slot_state[SLOT(s, w)] == WAITING && slot_rank[SLOT(s, w)] == rank &&
           combinable[w] && FITS(w) ->
           passed_conflict(s, w, blocked);
           if
           :: !blocked ->
              /* it waits in its first shard and holds nothing */
              assert(slot_state[SLOT(0, w)] != GRANTED && slot_state[SLOT(1, w)] != GRANTED);
              slot_taken[SLOT(s, w)] = _pid + 1
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
  w = 0; rank = 0; blocked = false
}

/* Served in queue order: no request of a shard where `p` has a slot, ticketed
 * before it, conflicting with it, still waits untaken. */
inline assert_in_order(p) {
  sh = 0;
  do
  :: sh < S ->
     if
     :: slot_state[SLOT(sh, p)] != FREE ->
        q = 0;
        do
        :: q < N ->
           assert(!(q != p && slot_state[SLOT(sh, q)] == WAITING && !TAKEN(SLOT(sh, q)) &&
                    slot_rank[SLOT(sh, q)] < slot_rank[SLOT(sh, p)] &&
                    CONFLICT(SLOT(sh, q), SLOT(sh, p))));
           q++
        :: else -> break
        od
     :: else
     fi;
     sh++
  :: else -> break
  od;
  q = 0; sh = 0
}

/* The combined write's critical section: the taken writers are served with the
 * combiner. Cells they write outside the combiner's request are counted as
 * writers too (none when the take is right). */
inline serve_taken() {
  w = 0;
  do
  :: w < N ->
     if
     :: MINE(SLOT(0, w)) || MINE(SLOT(1, w)) ->
        assert_in_order(w);
        waiting[w] = false;
        holding[w] = true;
        c = 0;
        do
        :: c < CELLS ->
           if
           :: (request_of[w] & ~request_cells) & (1 << c) ->
              writers_in_cs[c]++;
              assert(writers_in_cs[c] <= 1 && readers_in_cs[c] == 0)
           :: else
           fi;
           c++
        :: else -> break
        od
     :: else
     fi;
     w++
  :: else -> break
  od;
  w = 0; c = 0
}

inline unserve_taken() {
  w = 0;
  do
  :: w < N ->
     if
     :: MINE(SLOT(0, w)) || MINE(SLOT(1, w)) ->
        holding[w] = false;
        c = 0;
        do
        :: c < CELLS ->
           if
           :: (request_of[w] & ~request_cells) & (1 << c) -> writers_in_cs[c]--
           :: else
           fi;
           c++
        :: else -> break
        od
     :: else
     fi;
     w++
  :: else -> break
  od;
  w = 0; c = 0
}
#endif

/* Critical section entry: count p in on every cell it asked for and check them. */
inline enter_critical_section() {
#ifdef COMBINE
  assert_in_order(_pid);
  serve_taken();
#endif
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
#ifdef COMBINE
  unserve_taken();
#endif
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

#define GRANTED_IN(s) (slot_state[SLOT(s, _pid)] == GRANTED)

inline choose_mode() {
  if
  :: request_mode = READ
  :: request_mode = WRITE
#ifdef COMBINE
  :: request_mode = WRITE; combinable[_pid] = 1
#endif
  fi;
#ifdef COMBINE
  request_of[_pid] = request_cells;
#endif
  waiting[_pid] = true
}

#ifdef COMBINE
/* A combinable write, once granted its last shard, takes what it can in each shard
 * (a mutex section each; the last one rides with the entry). */
#define TAKE_IN(s) if :: combinable[_pid] -> take(s) :: else fi
#define RESET_COMBINE combinable[_pid] = 0; request_of[_pid] = 0
/* A slot freed under its owner while it waited: a combiner wrote its request. */
#define TAKEN_AND_DONE(s) (slot_state[SLOT(s, _pid)] == FREE)
#else
#define TAKE_IN(s) skip
#define RESET_COMBINE skip
#define TAKEN_AND_DONE(s) false
#endif

/* A round is three atomic steps for a one-shard request, five for a two-shard one:
 * one per mutex section, with the futex wait as the guard of the step after it.
 * Each step also carries the purely local work next to it (choosing the request,
 * returning from the wait, ghost bookkeeping), which no other process can observe. */
active [N] proctype client() {
  byte request_cells;
  bit request_mode;
  byte first_shard, last_shard;   /* the two-shard request's visiting order */
  byte q, w, rank, c;
  bool blocked;
#ifdef COMBINE
  byte sh;
#endif

  /* The request menu: one cell of either shard (two cells of shard 0, so that
   * disjoint extents share a shard), or two cells spanning both shards. */
  do
  :: atomic {
       if
       :: request_cells = 1; first_shard = 0   /* cell 0 */
       :: request_cells = 2; first_shard = 0   /* cell 1 */
       :: request_cells = 4; first_shard = 1   /* cell 2 */
#ifdef COMBINE
       :: request_cells = 3; first_shard = 0   /* cells 0-1: a combiner with room */
#endif
       fi;
       choose_mode();
       enqueue(first_shard)
     };
#ifdef COMBINE
     if
     :: d_step {
          TAKEN_AND_DONE(first_shard) ->
          request_cells = 0; request_mode = READ; first_shard = 0; RESET_COMBINE
        }
     :: d_step { GRANTED_IN(first_shard) -> TAKE_IN(first_shard); enter_critical_section() };
        d_step {
          leave_critical_section();
          dequeue(first_shard);
          request_cells = 0; request_mode = READ; first_shard = 0; RESET_COMBINE
        }
     fi
#else
     d_step { GRANTED_IN(first_shard) -> enter_critical_section() };
     d_step {
       leave_critical_section();
       dequeue(first_shard);
       request_cells = 0; request_mode = READ; first_shard = 0
     }
#endif
  :: atomic {
       request_cells = 6;                      /* cells 1-2, both shards */
       first_shard = 0; last_shard = 1;
#ifdef BROKEN_ORDER
       if
       :: true
       :: first_shard = 1; last_shard = 0      /* visit the higher shard first */
       fi;
#endif
       choose_mode();
       enqueue(first_shard)
     };
#ifdef COMBINE
     if
     :: d_step {
          TAKEN_AND_DONE(first_shard) ->
          request_cells = 0; request_mode = READ; first_shard = 0; last_shard = 0; RESET_COMBINE
        }
     :: atomic { GRANTED_IN(first_shard) -> enqueue(last_shard) };
        if
        :: combinable[_pid] ->
           d_step { GRANTED_IN(last_shard) -> take(first_shard) };
           d_step { take(last_shard); enter_critical_section() }
        :: else ->
           d_step { GRANTED_IN(last_shard) -> enter_critical_section() }
        fi;
        d_step { leave_critical_section(); dequeue(first_shard) };
        d_step {
          dequeue(last_shard);
          request_cells = 0; request_mode = READ; first_shard = 0; last_shard = 0; RESET_COMBINE
        }
     fi
#else
     atomic { GRANTED_IN(first_shard) -> enqueue(last_shard) };
     d_step { GRANTED_IN(last_shard) -> enter_critical_section() };
     d_step { leave_critical_section(); dequeue(first_shard) };
     d_step {
       dequeue(last_shard);
       request_cells = 0; request_mode = READ; first_shard = 0; last_shard = 0
     }
#endif
  od
}

/* Every request is eventually granted. One property per process, so that pan checks
 * each with -N; the processes run the same code, but checking each costs little. */
ltl live0 { [] (waiting[0] -> <> holding[0]) }
ltl live1 { [] (waiting[1] -> <> holding[1]) }
ltl live2 { [] (waiting[2] -> <> holding[2]) }
#if N > 3
ltl live3 { [] (waiting[3] -> <> holding[3]) }
#endif
