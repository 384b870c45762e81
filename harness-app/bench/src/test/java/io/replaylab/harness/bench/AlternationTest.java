package io.replaylab.harness.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class AlternationTest {
    @Test
    void twoVariantsTakeTurnsABBAWithinARoundAndLeadInTurnFromRoundToRound() {
        Alternation ab = Alternation.of(2);

        assertThat(ab.turns(0, 4)).containsExactly(0, 1, 1, 0, 0, 1, 1, 0);
        assertThat(ab.turns(0, 3)).as("an odd count still gives each variant its share").containsExactly(0, 1, 1, 0, 0, 1);
        assertThat(ab.order(0)).containsExactly(0, 1);
        assertThat(ab.order(1)).containsExactly(1, 0);
        assertThat(ab.order(-1)).as("a warm-up round before the first").containsExactly(1, 0);
        assertThat(ab.turns(1, 2)).containsExactly(1, 0, 0, 1);
        assertThat(ab.period()).isEqualTo(2);
    }

    @Test
    void threeVariantsGoABCCBAAndTakeEveryPlaceEquallyOftenOverOneTurnOfTheOrders() {
        Alternation abc = Alternation.of(3);

        assertThat(abc.turns(0, 2)).containsExactly(0, 1, 2, 2, 1, 0);
        assertThat(IntStream.range(0, abc.period()).mapToObj(abc::order).toList()).containsExactly(
                List.of(0, 1, 2), List.of(1, 2, 0), List.of(2, 0, 1), List.of(0, 2, 1), List.of(2, 1, 0), List.of(1, 0, 2));
        for (int place = 0; place < 3; place++) {
            int p = place;
            for (int variant = 0; variant < 3; variant++) {
                int v = variant;
                assertThat(IntStream.range(0, abc.period()).filter(r -> abc.order(r).get(p) == v).count())
                        .as("variant %d in place %d", v, p).isEqualTo(2);
            }
        }
        assertThat(abc.turn(5)).isZero();
        assertThat(abc.turn(6)).isEqualTo(1);
        assertThat(abc.turn(-1)).as("the warm-up rounds belong to the turn before the first").isEqualTo(-1);
    }

    @Test
    void aSingleVariantHasNothingToAlternateWith() {
        assertThatThrownBy(() -> Alternation.of(1)).hasMessageContaining("two variants at least, had 1");
    }
}
