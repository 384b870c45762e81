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

/**
 * One meter of a Micrometer registry, frozen at snapshot time.
 *
 * @param unit the meter's base unit (a timer's is the registry's time unit), or null
 */
public record MetricValue(String name, String type, String unit, Map<String, String> tags, Map<String, Double> values) {
    private static final List<String> FIRST = List.of("count", "value", "total", "max");

    public MetricValue {
        tags = Map.copyOf(tags);
        values = Map.copyOf(values);
    }

    /** The values as a reader wants them: count first, whole numbers without decimals, amounts with their unit. */
    public String display() {
        List<String> keys = new ArrayList<>(new TreeMap<>(values).keySet());
        keys.sort(Comparator.comparingInt((String k) -> FIRST.contains(k) ? FIRST.indexOf(k) : FIRST.size()));
        boolean counted = type.equals("timer") || type.equals("distribution_summary") || type.equals("long_task_timer");
        List<String> parts = new ArrayList<>();
        for (String k : keys) {
            String u = unit == null || (counted && k.equals("count")) ? "" : " " + (unit.equals("seconds") ? "s" : unit);
            parts.add(k + " " + number(values.get(k)) + u);
        }
        return String.join(", ", parts);
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
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
            out.add(new MetricValue(m.getId().getName(), m.getId().getType().name().toLowerCase(java.util.Locale.ROOT), m.getId().getBaseUnit(), tags,
                    values));
        }
        out.sort(Comparator.comparing(MetricValue::name).thenComparing(v -> new TreeMap<>(v.tags()).toString()));
        return out;
    }
}
