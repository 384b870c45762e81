package io.replaylab.evidence;

import java.util.List;
import java.util.Optional;

/**
 * Another project's lab as it plugs into evidence-core: its kinds of event (listed by {@link Types}) and a
 * report section of its own ({@link Pauses}), both named in this module's test resources' META-INF/services.
 */
public sealed interface SampleLab extends Payload.Extension {
    Report.Mark PAUSE = new Report.Mark("pause", "#ef6c00");

    /** Most of this lab's events are a pause's: the others say how they draw. */
    @Override
    default Report.Mark mark() {
        return PAUSE;
    }

    /** A worker took items over. */
    record Took(String worker, List<String> items, String seenBy) implements SampleLab {
        @Override
        public String summary() {
            return worker + " took " + items + " (seen by " + seenBy + ")";
        }

        @Override
        public Report.Mark mark() {
            return new Report.Mark("ownership", "#1565c0");
        }
    }

    /** A worker's thread paused at a point. */
    record Paused(String point, String thread) implements SampleLab {
        @Override
        public String summary() {
            return point + " paused " + thread;
        }
    }

    /** A paused point resumed. */
    record Resumed(String point, long pausedMillis) implements SampleLab {
        @Override
        public String summary() {
            return point + " resumed after " + pausedMillis + " ms";
        }
    }

    /** A worker's write was refused. */
    record Refused(String worker, String why) implements SampleLab {
        @Override
        public String summary() {
            return worker + "'s write refused: " + why;
        }

        @Override
        public Report.Mark mark() {
            return new Report.Mark("refused", "#c62828");
        }
    }

    final class Types implements PayloadTypes {
        @Override
        public List<Class<? extends Payload.Extension>> types() {
            return List.copyOf(PayloadTypes.recordsOf(SampleLab.class));
        }
    }

    /** The pauses as a table, each also drawn as a bar in the HTML timeline. */
    final class Pauses implements ReportSection {
        @Override
        public Optional<Report.Section> of(ExperimentEvidence experiment) {
            List<List<Report.Cell>> rows = experiment.events().stream().filter(ev -> ev.payload() instanceof Resumed)
                    .map(ev -> List.of(Report.Cell.text(((Resumed) ev.payload()).point()), Report.Cell.text(((Resumed) ev.payload()).pausedMillis())))
                    .toList();
            return rows.isEmpty() ? Optional.empty()
                    : Optional.of(Report.Section.of("Pauses", new Report.Table("pauses", List.of("point", "ms"), rows, null)));
        }

        @Override
        public List<Report.Span> spans(List<Event> inTimeOrder) {
            return inTimeOrder.stream().filter(ev -> ev.payload() instanceof Resumed).flatMap(end -> inTimeOrder.stream()
                    .filter(ev -> ev.seq() < end.seq() && ev.payload() instanceof Paused p && p.point().equals(((Resumed) end.payload()).point()))
                    .reduce((a, b) -> b).map(start -> new Report.Span(start, end, "pause " + ((Resumed) end.payload()).point() + ": "
                            + ((Resumed) end.payload()).pausedMillis() + " ms")).stream()).toList();
        }
    }
}
