package io.replaylab.harness.lab;

import java.util.List;

import io.replaylab.evidence.Payload;
import io.replaylab.evidence.PayloadTypes;
import io.replaylab.evidence.Report;

/**
 * What the lab itself did to a consumer, and what it saw it do, as typed events (the report and a
 * reader of evidence.json find them by kind, not by a note's words): a freeze, an exit and a
 * restart under the lab's supervisor, a wire fault's firing and what the client did next, the
 * handoff wait the consumer's timeouts gave. Each says itself as the note it replaces said it.
 * Listed by {@link Types}.
 */
public sealed interface LabEvent extends Payload.Extension {
    /** How the HTML timeline draws what the lab did to A. */
    Report.Mark FAULT = new Report.Mark("fault", "#c62828");

    /** A's whole process stopped at its point ({@code by}: SIGSTOP, or the debugger that holds it), as /proc confirmed. */
    record Frozen(String instance, long pid, String point, String heldBy, String by, String confirmed) implements LabEvent {
        @Override
        public String summary() {
            return instance + " (pid " + pid + ") frozen " + by + " at " + point + " (held there by " + heldBy + ")" + confirmed;
        }

        @Override
        public Report.Mark mark() {
            return FAULT;
        }
    }

    /** An instance exited on its own while the experiment needed it; {@code committed}: where its group's offsets stood. */
    record Exited(String instance, long pid, int exit, String why, String committed) implements LabEvent {
        @Override
        public String summary() {
            return "exit " + exit + ": " + why + "; the group's committed offsets " + committed;
        }
    }

    /** The lab restarted an instance that exited, as a supervisor would. */
    record Restarted(String instance, long pid, long backOffSeconds, int restart, int most) implements LabEvent {
        @Override
        public String summary() {
            return instance + " restarted as pid " + pid + " after a back-off of " + backOffSeconds + " s (restart " + restart + " of at most "
                    + most + "), as a supervisor restarts a process that exits";
        }
    }

    /** A wire fault fired at a request of A's: {@code fault} its spec, {@code firing} what it hit and did. */
    record FaultFired(String fault, String firing) implements LabEvent {
        @Override
        public String summary() {
            return "fault " + fault + " " + firing;
        }

        @Override
        public Report.Mark mark() {
            return FAULT;
        }
    }

    /** What the client did after a fault fired, in words ({@code did}), then ({@code then}), read from the requests the proxy saw next. */
    record ClientDid(String did, String then, List<String> steps) implements LabEvent {
        public ClientDid {
            steps = List.copyOf(steps);
        }

        @Override
        public String summary() {
            return "what A did after the fault: " + did + then + (steps.isEmpty() ? "" : " (" + String.join(", ", steps) + ")");
        }
    }

    /** How long the lab waits for a partition to move, and why: the consumer's own timeouts as its client sent them, or what was asked. */
    record HandoffWait(String waits, String why) implements LabEvent {
        @Override
        public String summary() {
            return "the handoff wait is " + waits + ": " + why;
        }
    }

    /** A's heartbeats kept from the coordinator on the wire until it dropped A ({@code count} of them; 0: none came through to keep). */
    record HeartbeatsWithheld(int count) implements LabEvent {
        @Override
        public String summary() {
            return count == 0
                    ? "no heartbeat of A's member came through to withhold (its connection to the coordinator was held, or its process stopped): "
                            + "the coordinator heard nothing from A either way; its heartbeats reach it again from now on"
                    : count + " heartbeat(s) of A's member withheld on the wire (answered by the proxy as a live member's), so that the coordinator "
                            + "dropped A after its session timeout; A's heartbeats reach it again from now on";
        }
    }

    /** An instance's process left its group and joined again as a new member: the same process, so not the handoff's B. */
    record Rejoined(String instance, String memberId, String clientId) implements LabEvent {
        @Override
        public String summary() {
            return instance + " joined again as a new member " + memberId + " (client.id " + clientId + "): it is A, not B; the handoff waits for "
                    + "another member";
        }
    }

    /**
     * The user's producer's {@code records} in {@code from} copied into {@code topic} in committed transactions, with {@code aborted}
     * records of aborted transactions between them: copies under fresh ids ({@code namespace}-aborted-n), written where the source
     * mapping reads the id ({@code idField}); none when {@code aborted} is 0 (then every record must read with {@code mapping}).
     */
    record SourceCopied(String from, String topic, int records, int aborted, String namespace, String idField, String mapping) implements LabEvent {
        @Override
        public String summary() {
            return "the producer's " + records + " record(s) in " + from + " copied into " + topic + " in committed transactions, " + (aborted > 0
                    ? "with " + aborted + " record(s) of aborted transactions between them: copies of its records under fresh ids (" + namespace
                            + "-aborted-<n>, written at " + idField + ")"
                    : "with no aborted transaction between them: none of its records takes a fresh id at " + idField + " (each must read with "
                            + mapping + ")");
        }
    }

    /**
     * The source set held back and published into {@code topic} in steps ({@code steps}: how many and when), unchanged, and with
     * {@code abortedTransactions} between them when the run's source has them.
     */
    record SourceStaged(String topic, boolean abortedTransactions, String steps) implements LabEvent {
        @Override
        public String summary() {
            return "the source set goes to " + topic + " unchanged" + (abortedTransactions
                    ? ", in committed transactions with aborted ones (copies under fresh ids) between them" : "") + steps;
        }
    }

    /** gdb attached to the program an instance runs ({@code pid}: the instance itself or a descendant), the point found in {@code library}. */
    record DebuggerAttached(String instance, long pid, long instancePid, String library, long pauseMillis) implements LabEvent {
        @Override
        public String summary() {
            return "gdb attached to " + instance + " (pid " + pid + ": " + (pid == instancePid ? "the subject itself" : "a descendant of the subject's pid "
                    + instancePid) + "); the point is in " + library + "; it stood still for " + pauseMillis + " ms while gdb attached";
        }
    }

    /**
     * A transaction an instance ran through the run's PostgreSQL proxy, as the proxy saw it end: on which session,
     * how ({@code COMMITTED}, {@code FAILED}, ...), and what it ran (statements and bound parameters, cut short).
     */
    record DbTransaction(String instance, int session, String outcome, String sqlState, List<String> statements) implements LabEvent {
        public DbTransaction {
            statements = List.copyOf(statements);
        }

        @Override
        public String summary() {
            String ran = io.replaylab.barrier.pg.WitnessedTransaction.work(statements).stream().limit(3)
                    .map(x -> x.length() > 120 ? x.substring(0, 120) + "…" : x).collect(java.util.stream.Collectors.joining("; "));
            return instance + "'s transaction on PostgreSQL session " + session + " " + outcome.toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + (sqlState.isEmpty() ? "" : " (SQLSTATE " + sqlState + ")") + (ran.isEmpty() ? "" : ": " + ran);
        }

        @Override
        public Report.Mark mark() {
            return DB;
        }

        /** The sequence diagram's arrow: the instance's transaction to the database, red unless it committed. */
        @Override
        public java.util.Optional<Report.Message> arrow() {
            return java.util.Optional.of(new Report.Message(instance, "database", "transaction " + outcome.toLowerCase(java.util.Locale.ROOT)
                    .replace('_', ' ') + (sqlState.isEmpty() ? "" : " " + sqlState), !outcome.equals("COMMITTED")));
        }
    }

    /**
     * How long a drain of {@code group} ({@code stage}: which of the experiment's) waits without progress before it calls the group
     * stalled, a FAIL ({@code window}), and why: the consumer's own timeouts as its client sent them ({@code basis}).
     */
    record DrainPatience(String stage, String group, String window, String basis) implements LabEvent {
        @Override
        public String summary() {
            return "the " + stage + " of " + group + " waits while it progresses; " + window + " without progress (no new commit, effect, join "
                    + "or restart) is a stall, FAIL: " + basis;
        }
    }

    /**
     * A drain of {@code group} done before the log end: {@code why} (what the wire showed of the group's reading), its committed
     * offsets then still at {@code committed} for {@code still}.
     */
    record DoneShort(String group, String why, String committed, String still) implements LabEvent {
        @Override
        public String summary() {
            return group + ": " + why + ", its committed offsets then still at " + committed + " for " + still + ": done short of the end";
        }
    }

    /**
     * A held at its DB commit for up to {@code window} while every offset commit is checked against the database, so that a commit
     * timer fires with a record in flight ({@code first}: when A's first offset commit came after its start, if one did; at least
     * {@code least}).
     */
    record HeldForATimer(String window, String first, String least) implements LabEvent {
        @Override
        public String summary() {
            return "A held at its DB commit for up to " + window + " while the check watches its commits (" + first + "; at least " + least + ")";
        }
    }

    /** A released from its DB commit after {@code window} with no commit of its ahead of the database; it goes on, still checked. */
    record ReleasedUnkilled(String window) implements LabEvent {
        @Override
        public String summary() {
            return "A released after " + window + " at its DB commit: no commit of A's covered the held record meanwhile; it goes on, its commits "
                    + "still checked and killed at if ahead, until its group drained";
        }
    }

    /** How the HTML timeline draws what the database did. */
    Report.Mark DB = new Report.Mark("database", "#2e7d32");

    /** This module's kinds, for the {@link PayloadTypes} service. */
    final class Types implements PayloadTypes {
        @Override
        public List<Class<? extends Payload.Extension>> types() {
            return List.copyOf(PayloadTypes.recordsOf(LabEvent.class));
        }
    }
}
