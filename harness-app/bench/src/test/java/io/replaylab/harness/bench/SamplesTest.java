package io.replaylab.harness.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class SamplesTest {
    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValuesRoundedForWholeFigures() {
        Samples ms = Samples.of(40, 10, 30, 21);

        assertThat(ms.median()).isEqualTo(25.5);
        assertThat(ms.roundedMedian()).isEqualTo(26);
        assertThat(ms.mean()).isEqualTo(25.25);
        assertThat(ms.count()).isEqualTo(4);
    }

    @Test
    void aPercentileByNearestRankIsAValueThatWasMeasured() {
        Samples us = Samples.empty();
        IntStream.rangeClosed(1, 100).forEach(i -> us.add(i * 10));
        us.add(5000);

        assertThat(us.nearestRank(50)).isEqualTo(510);
        assertThat(us.nearestRank(99)).isEqualTo(1000);
        assertThat(us.nearestRank(100)).isEqualTo(5000);
    }

    @Test
    void samplesReadFromRecordsAreTheirValues() {
        record Round(long ms) {
        }
        assertThat(Samples.of(List.of(new Round(3), new Round(9), new Round(4)), Round::ms).roundedMedian()).isEqualTo(4);
    }

    @Test
    void theMeanIntervalIsStudentsTAndNeedsTwoSamples() {
        Samples.Interval i = Samples.of(1.0, 2.0, 3.0).meanInterval(0.95);

        // mean 2, standard deviation 1, t(0.975, 2 df) = 4.303: half-width 4.303 / sqrt(3)
        assertThat(i.mean()).isEqualTo(2.0);
        assertThat(i.high() - i.mean()).isCloseTo(2.484, within(0.001));
        assertThat(i.low()).isCloseTo(2.0 - 2.484, within(0.001));
        assertThat(i.count()).isEqualTo(3);
        assertThatThrownBy(() -> Samples.of(1.0).meanInterval(0.95)).hasMessageContaining("at least 2 samples, has 1");
    }
}
