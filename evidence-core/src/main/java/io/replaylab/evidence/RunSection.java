package io.replaylab.evidence;

import java.util.Optional;

/**
 * A section at the top of a run's report, before its experiments: what a module says of the run as a whole (e.g. the lab's
 * verdict per defect class), found with {@link java.util.ServiceLoader} as {@link ReportSection} is
 * ({@code META-INF/services/io.replaylab.evidence.RunSection}), drawn in both reports with the same blocks.
 */
public interface RunSection {
    /** This section of the run's report, or empty when it has nothing to say of this run. */
    Optional<Report.Section> of(RunEvidence run);
}
