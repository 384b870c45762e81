package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaylab.harness.lab.SyntheticPayments;
import org.junit.jupiter.api.Test;

/** The reference consumer reads back every payment the lab's producer writes, and rejects every kind of bad record with a reason. */
class PaymentTest {
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
