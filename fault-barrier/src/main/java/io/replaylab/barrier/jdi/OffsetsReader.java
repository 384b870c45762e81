package io.replaylab.barrier.jdi;

import java.util.List;
import java.util.Set;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.ClassType;
import com.sun.jdi.Field;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.StringReference;
import com.sun.jdi.Value;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.MethodPoint;

/**
 * Reads a map of offsets, its keys and values through the fields the point names
 * ({@link MethodPoint.OffsetsArgument}), through the map's own fields (no code runs in the held
 * program) when it is a map whose fields it knows: {@code HashMap}, {@code LinkedHashMap},
 * {@code Map.of}. The keys and values are read through their fields whatever the map.
 */
final class OffsetsReader {
    private static final Set<String> KNOWN = Set.of("java.util.HashMap", "java.util.LinkedHashMap",
            "java.util.ImmutableCollections$Map1", "java.util.ImmutableCollections$MapN");

    private final MethodPoint.OffsetsArgument fields;

    OffsetsReader(MethodPoint.OffsetsArgument fields) {
        this.fields = fields;
    }

    static boolean isMap(ObjectReference o) {
        return o.referenceType() instanceof ClassType c && c.allInterfaces().stream().anyMatch(i -> i.name().equals("java.util.Map"));
    }

    /** Whether {@link #readFields} knows the map's type (a subclass may keep its entries elsewhere: it does not). */
    static boolean knows(ObjectReference map) {
        return KNOWN.contains(map.referenceType().name());
    }

    /** Reads a map of a {@link #knows known} type through its fields into {@code out}; null, or what could not be read. */
    String readFields(ObjectReference map, List<CommitOffset> out) {
        String type = map.referenceType().name();
        String bad = null;
        if (type.endsWith("ImmutableCollections$Map1")) {
            bad = put(out, get(map, "k0"), get(map, "v0"));
        } else if (!(get(map, "table") instanceof ArrayReference arr)) {
            // a HashMap makes its table on the first put: none is empty
            bad = get(map, "table") == null ? null : "no table";
        } else if (type.endsWith("ImmutableCollections$MapN")) {
            for (int i = 0; i + 1 < arr.length() && bad == null; i += 2) {
                bad = arr.getValue(i) == null ? null : put(out, arr.getValue(i), arr.getValue(i + 1));
            }
        } else {
            for (Value node : arr.getValues()) { // HashMap, LinkedHashMap
                for (Value n = node; n instanceof ObjectReference nr && bad == null; n = get(nr, "next")) {
                    bad = put(out, get(nr, "key"), get(nr, "value"));
                }
            }
        }
        return bad == null ? null : "(unreadable " + type + ": " + bad + ")";
    }

    /** One entry into {@code out}; null, or why it has not the fields the point names (never skipped: a map read as empty passes). */
    String put(List<CommitOffset> out, Value tp, Value om) {
        if (tp instanceof ObjectReference t && om instanceof ObjectReference o
                && get(t, fields.topicField()) instanceof StringReference topic && get(t, fields.partitionField()) instanceof IntegerValue p
                && get(o, fields.offsetField()) instanceof LongValue off) {
            out.add(new CommitOffset(topic.value(), p.value(), off.value()));
            return null;
        }
        return "an entry " + typeOf(tp) + " = " + typeOf(om);
    }

    private static String typeOf(Value v) {
        return v == null ? "null" : v.type().name();
    }

    /** The value of {@code o}'s field {@code field}, or null when its type has none. */
    static Value get(ObjectReference o, String field) {
        Field f = o.referenceType().fieldByName(field);
        return f == null ? null : o.getValue(f);
    }
}
