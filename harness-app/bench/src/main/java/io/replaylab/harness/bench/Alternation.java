package io.replaylab.harness.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The order in which a bench's variants (direct and through the proxy, plain and armed,
 * {@code --parallel 1} and {@code --parallel P}) take their turns, one schedule for every bench that
 * compares them. Within a round the variants go A B B A (A B C C B A for three), repeated: the JVM,
 * the broker and the machine still speed up or slow down from one measurement to the next, and in
 * this order a steady drift costs every variant the same. From round to round the order itself
 * turns, so that each variant takes each place equally often: with one fixed order, two plain
 * proxies differed by 2.6% in CPU and 7% in produce time (an A/A control, 20 rounds).
 * Variants are numbered from 0.
 */
final class Alternation {
    private final int variants;
    private final List<List<Integer>> orders;

    private Alternation(int variants, List<List<Integer>> orders) {
        this.variants = variants;
        this.orders = orders;
    }

    /**
     * The schedule of {@code variants} variants. Its orders are the rotations of 0, 1, … n-1 and
     * then of 0, n-1, … 1, each once: for two, A B then B A; for three, the six orders, each
     * variant twice in each place.
     */
    static Alternation of(int variants) {
        if (variants < 2) {
            throw new IllegalArgumentException("an alternation needs two variants at least, had " + variants);
        }
        List<Integer> forward = new ArrayList<>();
        List<Integer> backward = new ArrayList<>(List.of(0));
        for (int v = 0; v < variants; v++) {
            forward.add(v);
            if (v > 0) {
                backward.add(variants - v);
            }
        }
        Set<List<Integer>> orders = new LinkedHashSet<>();
        for (List<Integer> first : List.of(forward, backward)) {
            for (int shift = 0; shift < variants; shift++) {
                List<Integer> order = new ArrayList<>(first);
                Collections.rotate(order, -shift);
                orders.add(List.copyOf(order));
            }
        }
        return new Alternation(variants, List.copyOf(orders));
    }

    /** How many rounds one turn through every order takes: a count of rounds that is a multiple of it weighs all places alike. */
    int period() {
        return orders.size();
    }

    /** The order of round {@code round} (counted from 0; a negative round, a warm-up, takes the orders from the end). */
    List<Integer> order(int round) {
        return orders.get(Math.floorMod(round, orders.size()));
    }

    /** How many whole turns through the orders came before round {@code round}: a bench that swaps something per turn reads it. */
    int turn(int round) {
        return Math.floorDiv(round, orders.size());
    }

    /**
     * The variants' turns in round {@code round}, each variant {@code each} times: its order, that
     * order reversed, the order again, … (A B B A A B B A for two variants, {@code each} = 4).
     */
    List<Integer> turns(int round, int each) {
        List<Integer> order = order(round);
        List<Integer> turns = new ArrayList<>(variants * each);
        for (int i = 0; i < variants * each; i++) {
            int k = i % (2 * variants);
            turns.add(k < variants ? order.get(k) : order.get(2 * variants - 1 - k));
        }
        return turns;
    }
}
