/*
 * optimistic_read.pml: optimistic reads beside the byte-range lock's writers, for spin
 * (adio/write_marks.h implements it; piox_lock.h: piox_lock_optimistic_begin/_end).
 *
 * The protocol. A table of words in the lock's shared segment; every block of the
 * file (64 KiB) maps to one word, and blocks may share a word. A word holds a
 * generation and a count of writers at work.
 *   writer: granted its write lock (range_lock.pml proves writers of a byte exclude
 *           each other), it adds, word by word, one to the generation and one to the
 *           writers of each word its blocks map to; writes its bytes; takes its
 *           writers off again, word by word; releases.
 *   reader: takes no lock. It looks at each word of its blocks in turn and gives up
 *           (takes the read lock instead) if a writer is at work in one; reads its
 *           bytes; looks at the words again in turn: all unchanged, the read is kept,
 *           else it is thrown away.
 * The property: a kept read overlapped no write of its bytes, neither one under way
 * when its reading began nor one that began while it read. Then every byte it read
 * held, while it read, the value it had when the reading began: the read is atomic.
 * Ghost counters per cell, odd while a write of the cell is under way, carry it: the
 * reader notes them as its reading begins (after the first look) and as it ends
 * (before the second look), and asserts, when it keeps its read, that they were
 * even and had not moved.
 *
 * Size: 2 writers of WRITES (2) requests each, 1 reader (-DREADERS=2 for two) of
 * READS (1), 3 byte cells: a read may span two writes of one writer, or both
 * writers' writes, under way together on one word. Cells 0 and 1 share word 0 (two
 * blocks on one word, or one block: the same to the protocol), cell 2 has word 1.
 * Writers choose among requests of cell 0, 1, 2 or cells 0-1; readers among cells
 * 0-1 and cells 1-2. Every word access and every cell access of a writer is its own
 * step, as in the code (one atomic instruction, or one byte of a pwrite); the
 * reader's read is the stretch between two steps that note the ghosts, where every
 * other process's steps may fall. Spin's interleavings are sequentially consistent;
 * the code makes its marks seq_cst and puts a full fence between the read and the
 * second look (write_marks.cpp).
 *
 * Broken variants, each of which spin must catch (an assertion):
 *   -DBROKEN_PARITY      a word is one counter made odd by a writer and even again
 *                        (the classic one-writer seqlock): two writers of disjoint
 *                        cells on one word make it even while both write
 *   -DBROKEN_LATE_MARK   the writer marks its words after it writes its first cell
 *   -DBROKEN_NO_RECHECK  the reader keeps its read without the second look
 */

#ifndef READERS
#define READERS 1
#endif
#define WRITERS 2
#define CELLS 3
#define WORDS 2
#ifndef WRITES
#define WRITES 2                      /* requests per writer: keeps the counters finite */
#endif
#ifndef READS
#define READS 1                       /* and per reader (its rounds are independent) */
#endif

byte generation[WORDS];
byte writers_at_work[WORDS];
byte cell_writes[CELLS];              /* ghost: odd while a write of the cell runs */
bit  claimed[CELLS];                  /* the write lock, abstracted: one writer a cell */

/* Each process makes a bounded number of requests, so no counter wraps (in the code a generation
 * has 40 bits; a wrap needs 2^40 writes of one word during one read). */

#define HAS(set, i) (((set) >> (i)) & 1)
#define WORDS_OF(cells) ((HAS(cells, 0) | HAS(cells, 1)) | (HAS(cells, 2) << 1))

/* The writer's steps, one shared access each (a no-op where its request has no such
 * word or cell). */
#ifdef BROKEN_PARITY
#define MARK(w)   d_step { if :: HAS(words, w) -> generation[w]++ :: else fi }
#define UNMARK(w) d_step { if :: HAS(words, w) -> generation[w]++ :: else fi }
#else
#define MARK(w)   d_step { if :: HAS(words, w) -> generation[w]++; writers_at_work[w]++ :: else fi }
#define UNMARK(w) d_step { if :: HAS(words, w) -> writers_at_work[w]-- :: else fi }
#endif
#define WRITE_BEGINS(c) d_step { if :: HAS(cells, c) -> cell_writes[c]++ :: else fi }
#define WRITE_ENDS(c)   d_step { if :: HAS(cells, c) -> cell_writes[c]++ :: else fi }

active [WRITERS] proctype writer() {
  byte cells, words;
  byte rounds = 0;
  do
  :: rounds == WRITES -> break
  :: rounds < WRITES ->
     atomic {   /* choose a request and wait for the write lock */
       rounds++;
       if
       :: cells = 1
       :: cells = 2
       :: cells = 4
       :: cells = 3
       fi;
       !(claimed[0] && HAS(cells, 0)) && !(claimed[1] && HAS(cells, 1)) &&
       !(claimed[2] && HAS(cells, 2)) ->
       claimed[0] = claimed[0] | HAS(cells, 0);
       claimed[1] = claimed[1] | HAS(cells, 1);
       claimed[2] = claimed[2] | HAS(cells, 2);
       words = WORDS_OF(cells)
     };
#ifndef BROKEN_LATE_MARK
     MARK(0); MARK(1);
     WRITE_BEGINS(0); WRITE_ENDS(0);
#else
     WRITE_BEGINS(0); WRITE_ENDS(0);   /* cell 0 written before the marks */
     MARK(0); MARK(1);
#endif
     WRITE_BEGINS(1); WRITE_ENDS(1);
     WRITE_BEGINS(2); WRITE_ENDS(2);
     UNMARK(0); UNMARK(1);
     d_step {   /* release */
       claimed[0] = claimed[0] & !HAS(cells, 0);
       claimed[1] = claimed[1] & !HAS(cells, 1);
       claimed[2] = claimed[2] & !HAS(cells, 2);
       cells = 0; words = 0
     }
  od
}

/* The reader's looks at word w: the first notes it and gives up at a writer at work,
 * the second compares. */
#ifdef BROKEN_PARITY
#define BUSY(w) (generation[w] % 2 == 1)
#else
#define BUSY(w) (writers_at_work[w] != 0)
#endif
#define FIRST_LOOK(w) \
  d_step { if :: HAS(words, w) -> seen_generation[w] = generation[w]; \
                                  seen_writers[w] = writers_at_work[w]; \
                                  if :: BUSY(w) -> kept = false :: else fi \
              :: else fi }
#define SECOND_LOOK(w) \
  d_step { if :: HAS(words, w) && (generation[w] != seen_generation[w] || \
                                   writers_at_work[w] != seen_writers[w]) -> kept = false \
              :: else fi }
#define NOTE(into) d_step { into[0] = cell_writes[0]; into[1] = cell_writes[1]; \
                            into[2] = cell_writes[2] }
#define UNMOVED(c) (!HAS(cells, c) || (noted[c] % 2 == 0 && ended[c] == noted[c]))

active [READERS] proctype reader() {
  byte cells, words;
  byte seen_generation[WORDS];
  byte seen_writers[WORDS];
  byte noted[CELLS];     /* ghost: cell_writes when the reading began */
  byte ended[CELLS];     /* and when it ended */
  bool kept;
  byte rounds = 0;
  do
  :: rounds == READS -> break
  :: rounds < READS ->
     d_step {
       rounds++;
       if
       :: cells = 3
       :: cells = 6
       fi;
       words = WORDS_OF(cells);
       kept = true
     };
     FIRST_LOOK(0); FIRST_LOOK(1);
     if
     :: kept ->
        NOTE(noted);   /* the reading begins */
        NOTE(ended);   /* and ends: other processes' steps fall between */
#ifndef BROKEN_NO_RECHECK
        SECOND_LOOK(0); SECOND_LOOK(1);
#endif
        /* kept: the read must have overlapped no write; else it is thrown away and
         * read again under the read lock (range_lock.pml) */
        d_step { if :: kept -> assert(UNMOVED(0) && UNMOVED(1) && UNMOVED(2)) :: else fi }
     :: else   /* a writer at work: the read lock instead */
     fi;
     d_step { cells = 0; words = 0; kept = false;
              seen_generation[0] = 0; seen_generation[1] = 0;
              seen_writers[0] = 0; seen_writers[1] = 0;
              noted[0] = 0; noted[1] = 0; noted[2] = 0;
              ended[0] = 0; ended[1] = 0; ended[2] = 0 }
  od
}
