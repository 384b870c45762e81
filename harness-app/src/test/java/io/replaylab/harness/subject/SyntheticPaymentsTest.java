package io.replaylab.harness.subject;

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
    void everyGoodRecordParsesBackAndEveryKindOfBadRecordIsRejectedWithAReason() throws Exception {
        for (SyntheticPayments.Generated g : SyntheticPayments.generate("ns", 20, 1, 3, 4)) {
            if (g.good()) {
                assertThat(Payment.parse(g.value())).isEqualTo(new Payment(g.id(), g.account(), g.amount()));
            } else {
                assertThatThrownBy(() -> Payment.parse(g.value())).isInstanceOf(Payment.Malformed.class);
            }
        }
        assertThatThrownBy(() -> Payment.parse(null)).hasMessage("null value");
        assertThatThrownBy(() -> Payment.parse("nope")).hasMessageStartingWith("not JSON");
        assertThatThrownBy(() -> Payment.parse("{\"account\":\"a\",\"amount\":1}")).hasMessage("missing id");
        assertThatThrownBy(() -> Payment.parse("{\"id\":\"x\",\"account\":\"a\",\"amount\":1.5}")).hasMessageStartingWith("non-integer amount");
        assertThatThrownBy(() -> Payment.parse("{\"id\":\"x\",\"account\":\"a\",\"amount\":\"7\"}")).hasMessageStartingWith("non-integer amount");
        // written by Jackson: quotes, backslashes and non-ASCII in an id stay one valid value
        assertThat(Payment.parse(SyntheticPayments.json("a\"b\\c-ä€", "acc-\"1", -5))).isEqualTo(new Payment("a\"b\\c-ä€", "acc-\"1", -5));
    }
}
