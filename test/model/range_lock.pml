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
 * Broken variants, each of which spin must catch:
 *   -DBROKEN_ORDER    a two-shard request visits its shards in either order (deadlock)
 *   -DBROKEN_NO_CHECK acquire grants without looking at other slots (assertion)
 *   -DBROKEN_BARGING  conflicts are checked against GRANTED slots only, so a request
 *                     overtakes earlier waiters: safe, but a waiter can starve (liveness)
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

/* Under mutex_s: free p's slot, renumber the later tickets, then grant, in ticket
 * order, each waiter that nothing earlier conflicts with. Called inside a d_step. */
inline dequeue(s) {
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

/* Critical section entry: count p in on every cell it asked for and check them. */
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

#define GRANTED_IN(s) (slot_state[SLOT(s, _pid)] == GRANTED)

inline choose_mode() {
  if
  :: request_mode = READ
  :: request_mode = WRITE
  fi;
  waiting[_pid] = true
}

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

  /* The request menu: one cell of either shard (two cells of shard 0, so that
   * disjoint extents share a shard), or two cells spanning both shards. */
  do
  :: atomic {
       if
       :: request_cells = 1; first_shard = 0   /* cell 0 */
       :: request_cells = 2; first_shard = 0   /* cell 1 */
       :: request_cells = 4; first_shard = 1   /* cell 2 */
       fi;
       choose_mode();
       enqueue(first_shard)
     };
     d_step { GRANTED_IN(first_shard) -> enter_critical_section() };
     d_step {
       leave_critical_section();
       dequeue(first_shard);
       request_cells = 0; request_mode = READ; first_shard = 0
     }
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
     atomic { GRANTED_IN(first_shard) -> enqueue(last_shard) };
     d_step { GRANTED_IN(last_shard) -> enter_critical_section() };
     d_step { leave_critical_section(); dequeue(first_shard) };
     d_step {
       dequeue(last_shard);
       request_cells = 0; request_mode = READ; first_shard = 0; last_shard = 0
     }
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
