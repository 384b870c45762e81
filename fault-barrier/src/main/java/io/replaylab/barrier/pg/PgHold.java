package io.replaylab.barrier.pg;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.PgPoint;

/** An armed point and its barrier. */
record PgHold(PgPoint point, Barrier barrier) {
}
