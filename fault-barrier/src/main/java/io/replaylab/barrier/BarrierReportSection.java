package io.replaylab.barrier;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.replaylab.barrier.BarrierEvent.BarrierReached;
import io.replaylab.barrier.BarrierEvent.BarrierReleased;
import io.replaylab.barrier.BarrierEvent.CommitWitnessed;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Report;
import io.replaylab.evidence.Report.Cell;
import io.replaylab.evidence.ReportSection;

/**
 * fault-barrier's part of a report (a {@link ReportSection} service): the commits the wire witness saw,
 * as a table of runs that says what became of each, in place of hundreds of timeline rows for the
 * stored ones (a refused one stays in the timeline too); and each barrier hold as a bar in the
 * HTML timeline, from where the call was held to its release.
 */
public final class BarrierReportSection implements ReportSection {
    static final String TITLE = "Offset commits on the wire";

    @Override
    public Optional<Report.Section> of(ExperimentEvidence experiment) {
        List<WireRow> wire = wireRows(experiment);
        if (wire.isEmpty()) {
            return Optional.empty();
        }
        List<List<Cell>> rows = wire.stream().map(w -> List.of(Cell.text(w.seqs()), Cell.text(w.millis()), Cell.text(w.last().instance()),
                Cell.text(w.last().member()), Cell.text(w.last().generation()), Cell.text(w.count()), Cell.text(w.offsets()),
                Cell.text(w.last().held() ? "yes" : ""), Cell.text(w.last().fateText()).withClass(w.last().accepted() ? "stored" : "refused"))).toList();
        return Optional.of(Report.Section.of(TITLE, new Report.Table("wire-commits", List.of("#", "t+ms", "instance", "member", "generation",
                "commits", "offsets (the last)", "held", "what became of it"), rows, null)));
    }

    @Override
    public boolean claims(Event event) {
        return event.payload() instanceof CommitWitnessed c && c.accepted();
    }

    /** A hold from the last reach of a point to its release. */
    @Override
    public List<Report.Span> spans(List<Event> inTimeOrder) {
        List<Report.Span> holds = new ArrayList<>();
        List<Event> reached = new ArrayList<>();
        for (Event ev : inTimeOrder) {
            if (ev.payload() instanceof BarrierReached) {
                reached.add(ev);
            }
            if (ev.payload() instanceof BarrierReleased rel) {
                reached.stream().filter(r -> ((BarrierReached) r.payload()).point().equals(rel.point())).reduce((a, b) -> b)
                        .ifPresent(start -> holds.add(new Report.Span(start, ev, "barrier hold " + rel.point() + ": " + rel.heldMillis() + " ms")));
            }
        }
        return holds;
    }

    /**
     * A run of witnessed commits in a row from one member at one generation, held or not, that
     * came to the same end: a subject that commits after each record sends hundreds, and a person
     * reads where the story changes (a new member, a new generation, a refusal).
     */
    private record WireRow(long firstSeq, long lastSeq, long firstMs, long lastMs, int count, CommitWitnessed last, Map<String, Long> offsets) {
        String seqs() {
            return count == 1 ? Long.toString(firstSeq) : firstSeq + "–" + lastSeq;
        }

        String millis() {
            return count == 1 ? Long.toString(firstMs) : firstMs + "–" + lastMs;
        }

        boolean continuedBy(CommitWitnessed c) {
            return c.instance().equals(last.instance()) && c.member().equals(last.member()) && c.generation() == last.generation()
                    && c.held() == last.held() && c.fateText().equals(last.fateText());
        }
    }

    private static List<WireRow> wireRows(ExperimentEvidence e) {
        List<WireRow> rows = new ArrayList<>();
        for (Event ev : Report.inTimeOrder(e.events())) {
            if (!(ev.payload() instanceof CommitWitnessed c)) {
                continue;
            }
            long ms = Report.sinceStart(e, ev);
            WireRow last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
            if (last != null && last.continuedBy(c)) {
                Map<String, Long> offsets = new TreeMap<>(last.offsets());
                offsets.putAll(c.offsets());
                rows.set(rows.size() - 1, new WireRow(last.firstSeq(), ev.seq(), last.firstMs(), ms, last.count() + 1, c, offsets));
            } else {
                rows.add(new WireRow(ev.seq(), ev.seq(), ms, ms, 1, c, new TreeMap<>(c.offsets())));
            }
        }
        return rows;
    }
}
