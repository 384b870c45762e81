package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class SyntheticPaymentsTest {

    @Test
    void sameSeedGivesTheSameRecordsAndAmountsAreIntegersWithRefunds() {
        List<SyntheticPayments.Generated> a = SyntheticPayments.generate("ns", 500, 42, 7, 5);
        List<SyntheticPayments.Generated> b = SyntheticPayments.generate("ns", 500, 42, 7, 5);
        assertThat(a).isEqualTo(b).hasSize(505);
        assertThat(SyntheticPayments.generate("ns", 500, 43, 7, 5)).isNotEqualTo(a);
        assertThat(a.stream().filter(SyntheticPayments.Generated::good)).hasSize(500)
                .anyMatch(g -> g.amount() < 0).allMatch(g -> g.amount() != 0);
        assertThat(a.stream().filter(SyntheticPayments.Generated::good).map(SyntheticPayments.Generated::id).distinct()).hasSize(500);
    }

    @Test
    void aNegativeCountOrNoAccountIsRefusedInTheLibrarysWords() {
        assertThatThrownBy(() -> SyntheticPayments.generate("ns", -1, 1, 3, 0)).hasMessage("the count and the malformed count must be >= 0");
        assertThatThrownBy(() -> SyntheticPayments.generate("ns", 1, 1, 0, 0)).hasMessage("the number of accounts must be >= 1, was 0");
    }
}
