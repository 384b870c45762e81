package io.replaylab.evidence;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything recorded about one experiment: what it exercises, its environment, timeline, checks,
 * outcome, limitations, artifacts and metrics.
 *
 * @param ended null when the experiment never finished (its outcome is then NOT_RUN)
 */
public record ExperimentEvidence(
        String name,
        List<String> requirements,
        Instant started,
        Instant ended,
        Map<String, String> environment,
        List<Event> events,
        List<Check> checks,
        Outcome outcome,
        List<String> limitations,
        List<Artifact> artifacts,
        List<MetricValue> metrics) {

    public ExperimentEvidence {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(outcome, "outcome");
        requirements = List.copyOf(requirements);
        environment = java.util.Collections.unmodifiableMap(new TreeMap<>(environment));
        events = List.copyOf(events);
        checks = List.copyOf(checks);
        limitations = List.copyOf(limitations);
        artifacts = List.copyOf(artifacts);
        metrics = List.copyOf(metrics);
    }

    public boolean complete() {
        return ended != null;
    }
}
