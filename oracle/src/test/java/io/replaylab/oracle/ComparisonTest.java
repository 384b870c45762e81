package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Status;
import org.junit.jupiter.api.Test;

/** The verdict as evidence: each finding a check naming its requirement, the counts and the cut in the payload. */
class ComparisonTest {
    private static final Cut CUT = new Cut("pay", Instant.parse("2026-12-01T10:00:00Z"), Map.of(1, 7L, 0, 5L));

    private static Comparison comparison(Finding holes, long missing, long duplicated) {
        return new Comparison(missing + duplicated == 0 ? Status.PASS : Status.FAIL, "why", CUT, "ns", 12, 11,
                new Finding("missing", missing, missing == 0 ? List.of() : List.of("pay-3")), new Finding("duplicated", duplicated, List.of()),
                new Finding("unexpected", 0, List.of()), new Finding("mismatched", 0, List.of()), new Finding("malformed", 1, List.of("p0@2: not JSON")),
                new Finding("source-duplicates", 0, List.of()), holes, null, null);
    }

    @Test
    void eachFindingIsACheckThatFailsOnlyWhenItCountsSomethingAndTheFrontierOnlyWhenItWasChecked() {
        List<Check> unchecked = comparison(null, 1, 2).toChecks();
        assertThat(unchecked).extracting(Check::name).containsExactly("no missing effect", "no second effect", "no unexpected effect",
                "amounts match exactly");
        assertThat(unchecked).extracting(Check::requirement).containsOnly("R12");
        assertThat(unchecked.get(0)).isEqualTo(new Check("no missing effect", "R12", "0 missing", "1 missing: pay-3", Status.FAIL));
        assertThat(unchecked.get(1)).isEqualTo(new Check("no second effect", "R12", "0 duplicated", "2 duplicated", Status.FAIL));
        assertThat(unchecked.get(2).status()).isEqualTo(Status.PASS);

        List<Check> checked = comparison(new Finding("holes", 0, List.of()), 0, 0).toChecks();
        assertThat(checked).hasSize(5).allMatch(c -> c.status() == Status.PASS);
        assertThat(checked.get(4)).isEqualTo(new Check("no committed offset beyond a missing effect", "R11", "0 holes", "0 holes", Status.PASS));
        assertThat(comparison(new Finding("holes", 1, List.of("pay-0 committed 3 but offset 1 (a) has no effect")), 0, 0).toChecks().get(4).status())
                .isEqualTo(Status.FAIL);
    }

    @Test
    void theVerdictPayloadCarriesTheCountsOfEveryFindingAndTheCutPerPartition() {
        TargetEvent.OracleVerdict v = comparison(new Finding("holes", 0, List.of()), 1, 0).toPayload();
        assertThat(v.status()).isEqualTo("FAIL");
        assertThat(v.detail()).isEqualTo("why");
        assertThat(v.cutAt()).isEqualTo(CUT.takenAt());
        assertThat(v.cut()).containsExactlyInAnyOrderEntriesOf(Map.of("pay-0", 5L, "pay-1", 7L));
        assertThat(v.counts()).containsEntry("source", 12L).containsEntry("effects", 11L).containsEntry("missing", 1L)
                .containsEntry("malformed", 1L).containsEntry("holes", 0L);
        assertThat(comparison(null, 0, 0).counts()).doesNotContainKey("holes");
        assertThat(CUT.total()).isEqualTo(12);
    }
}
