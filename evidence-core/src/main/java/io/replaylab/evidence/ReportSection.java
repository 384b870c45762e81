package io.replaylab.evidence;

import java.util.List;
import java.util.Optional;

/**
 * A section of an experiment's report for a module's own kinds of event, found with
 * {@link java.util.ServiceLoader} like {@link PayloadTypes}: the module lists its implementation in
 * {@code META-INF/services/io.replaylab.evidence.ReportSection}. Its section is drawn in both reports
 * after the experiment's matrices and before its checks, with the same blocks as the sections of
 * evidence-core ({@link Report.Table}, {@link Report.Items}).
 */
public interface ReportSection {
    /** This section of one experiment's report, or empty when the experiment has none of its events. */
    Optional<Report.Section> of(ExperimentEvidence experiment);

    /** Whether the timeline table leaves the event out because this section shows it (routine events there may be hundreds of). */
    default boolean claims(Event event) {
        return false;
    }

    /** Bars the HTML timeline draws from one event to a later one (e.g. a hold from where it began to where it ended). */
    default List<Report.Span> spans(List<Event> inTimeOrder) {
        return List.of();
    }
}
