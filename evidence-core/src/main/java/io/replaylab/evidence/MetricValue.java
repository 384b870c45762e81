package io.replaylab.evidence;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Tag;

/** One meter of a Micrometer registry, frozen at snapshot time. */
public record MetricValue(String name, String type, Map<String, String> tags, Map<String, Double> values) {
    public MetricValue {
        tags = Map.copyOf(tags);
        values = Map.copyOf(values);
    }

    /** Every meter of the registry, sorted by name then tags. */
    public static List<MetricValue> snapshot(MeterRegistry registry) {
        List<MetricValue> out = new ArrayList<>();
        for (Meter m : registry.getMeters()) {
            Map<String, String> tags = new TreeMap<>();
            for (Tag t : m.getId().getTags()) {
                tags.put(t.getKey(), t.getValue());
            }
            Map<String, Double> values = new TreeMap<>();
            for (Measurement ms : m.measure()) {
                values.put(ms.getStatistic().getTagValueRepresentation(), ms.getValue());
            }
            out.add(new MetricValue(m.getId().getName(), m.getId().getType().name().toLowerCase(java.util.Locale.ROOT), tags, values));
        }
        out.sort(Comparator.comparing(MetricValue::name).thenComparing(v -> new TreeMap<>(v.tags()).toString()));
        return out;
    }
}
