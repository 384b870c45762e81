package io.replaylab.harness.experiment;

import java.util.List;
import java.util.Objects;

import io.replaylab.barrier.pg.DbFault;

/** One cell of the {@code db-faults} experiment: a database fault aimed at one of A's transactions while it drains. */
public record DbFaultCell(DbFault fault) {
    public DbFaultCell {
        Objects.requireNonNull(fault, "fault");
    }

    /** A cell from a fault spec, e.g. {@code commit:lost-answer} ({@link DbFault#parse}). */
    public static DbFaultCell parse(String spec) {
        return new DbFaultCell(DbFault.parse(spec));
    }

    /** The default cells: the ambiguous commit, a serialization failure at commit, a deadlock victim, an administrator's termination. */
    public static List<DbFaultCell> defaults() {
        return List.of("commit:lost-answer", "commit:error=40001", "statement:error=40P01", "connection:terminate=57P01").stream()
                .map(DbFaultCell::parse).toList();
    }

    /** The cell's part of experiment and namespace names. */
    String id() {
        return fault.spec().replace(':', '.').replace('=', '-');
    }

    @Override
    public String toString() {
        return fault.spec();
    }
}
