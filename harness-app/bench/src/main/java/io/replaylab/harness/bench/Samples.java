package io.replaylab.harness.bench;

import java.util.Collection;
import java.util.function.ToDoubleFunction;

import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;
import org.apache.commons.math3.stat.descriptive.rank.Percentile;

/**
 * Measurements of one quantity (a time, a rate, a per-round ratio) and their statistics, all from
 * commons-math3: a bench adds what it measured and asks for the median, a percentile, the mean or
 * its interval, never computing one itself.
 */
final class Samples {
    private final DescriptiveStatistics stats = new DescriptiveStatistics();

    private Samples() {
    }

    static Samples empty() {
        return new Samples();
    }

    static Samples of(double... values) {
        Samples s = new Samples();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    /** One sample per item, e.g. a bench's rounds and what each measured. */
    static <T> Samples of(Collection<T> items, ToDoubleFunction<? super T> value) {
        Samples s = new Samples();
        items.forEach(item -> s.add(value.applyAsDouble(item)));
        return s;
    }

    Samples add(double value) {
        stats.addValue(value);
        return this;
    }

    int count() {
        return (int) stats.getN();
    }

    boolean isEmpty() {
        return stats.getN() == 0;
    }

    /** The median (commons-math3's default estimate: the mean of the two middle values of an even count); NaN when empty. */
    double median() {
        return stats.getPercentile(50);
    }

    /** The median rounded to a whole number, for figures printed in whole milliseconds, MB or records/s. */
    long roundedMedian() {
        return Math.round(median());
    }

    /** The {@code p}th percentile by nearest rank: always a value that was measured (a latency's p99 is one request's). */
    long nearestRank(double p) {
        return Math.round(new Percentile().withEstimationType(Percentile.EstimationType.R_1).evaluate(stats.getValues(), p));
    }

    double mean() {
        return stats.getMean();
    }

    /**
     * Student's t interval of the mean at {@code confidence} (e.g. 0.95); needs two samples at
     * least. A bench judges a goal on it, not on the mean: one round varies by several percent on a
     * busy machine.
     */
    Interval meanInterval(double confidence) {
        int n = count();
        if (n < 2) {
            throw new IllegalStateException("an interval needs at least 2 samples, has " + n);
        }
        double half = new TDistribution(n - 1).inverseCumulativeProbability(1 - (1 - confidence) / 2) * stats.getStandardDeviation() / Math.sqrt(n);
        return new Interval(stats.getMean(), stats.getMean() - half, stats.getMean() + half, n);
    }

    /** A mean and the interval around it, over {@code count} samples. */
    record Interval(double mean, double low, double high, int count) {
    }
}
