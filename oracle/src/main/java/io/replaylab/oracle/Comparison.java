package io.replaylab.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Status;

/**
 * The oracle's verdict on source vs. target (SPEC R12), and the frontier (R11) when committed
 * offsets were given: missing, duplicated, unexpected and mismatched effects, malformed source
 * records, holes below the committed offset. FAIL if any discrepancy; malformed records are listed,
 * never dropped, and do not fail by themselves.
 *
 * For a share group given its archived records ({@link ArchivedRecord}), a record without an effect the broker
 * will never deliver again is not missing: {@code archived} when nobody's word archived it (the delivery count
 * limit: the consumer lost it, FAIL; a malformed one too), {@code rejected} when the consumer REJECTed a readable
 * record (its own word, but the record's effect is lost: FAIL). A REJECT of a malformed record is the consumer's
 * word on a record nobody can read: the malformed finding lists it, nothing fails.
 *
 * @param holes    null when no committed offsets were given (the frontier was not checked)
 * @param archived null when no archived records were given
 * @param rejected null when no archived records were given
 */
public record Comparison(Status status, String reason, Cut cut, String namespace, long sourceRecords, long targetEffects,
        Finding missing, Finding duplicated, Finding unexpected, Finding mismatched, Finding malformed, Finding sourceDuplicates,
        Finding holes, Finding archived, Finding rejected) {

    public Map<String, Long> counts() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("source", sourceRecords);
        m.put("effects", targetEffects);
        for (Finding f : findings()) {
            m.put(f.kind(), f.count());
        }
        return m;
    }

    public List<Finding> findings() {
        List<Finding> out = new ArrayList<>(List.of(missing, duplicated, unexpected, mismatched, malformed, sourceDuplicates));
        if (holes != null) {
            out.add(holes);
        }
        if (archived != null) {
            out.add(archived);
            out.add(rejected);
        }
        return out;
    }

    /** The check that fails when a record of the source has no effect (what a defect that loses records shows). */
    public static final String NO_MISSING_EFFECT = "no missing effect";
    /** The check that fails when a message has more than one effect (what a defect that applies twice shows). */
    public static final String NO_SECOND_EFFECT = "no second effect";

    /** As evidence checks, each naming its requirement. */
    public List<Check> toChecks() {
        List<Check> checks = new ArrayList<>();
        checks.add(zero(NO_MISSING_EFFECT, "R12", missing));
        checks.add(zero(NO_SECOND_EFFECT, "R12", duplicated));
        checks.add(zero("no unexpected effect", "R12", unexpected));
        checks.add(zero("amounts match exactly", "R12", mismatched));
        if (holes != null) {
            checks.add(zero("no committed offset beyond a missing effect", "R11", holes));
        }
        if (archived != null) {
            checks.add(zero("no record archived with nobody's word for it", "R12", archived));
            checks.add(zero("no readable record rejected without its effect", "R12", rejected));
        }
        return checks;
    }

    public TargetEvent.OracleVerdict toPayload() {
        Map<String, Long> ends = new LinkedHashMap<>();
        cut.endOffsets().forEach((p, end) -> ends.put(cut.topic() + "-" + p, end));
        return new TargetEvent.OracleVerdict(status.name(), counts(), reason, cut.takenAt(), ends);
    }

    private static Check zero(String name, String req, Finding f) {
        return Check.of(name, req, "0 " + f.kind(), f.count() + " " + f.kind() + (f.examples().isEmpty() ? "" : ": " + String.join("; ", f.examples())),
                f.count() == 0);
    }
}
