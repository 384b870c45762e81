package io.replaylab.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.replaylab.kafka.OffsetSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One comparison run: the source read up to its cut and a target side read at the same time (they
 * spill to separate bucket files of one {@link BucketJoin}), then judged. Either side's failure
 * abandons the other and is the one reported. Both sides are spilled by identity and joined one
 * bucket at a time, so memory stays bounded whatever the topic's size.
 */
final class SourceJoin {
    private static final Logger log = LoggerFactory.getLogger(Oracle.class); // the oracle's log, wherever the join runs

    private SourceJoin() {
    }

    /** One side's reader: spills its effects into the join. */
    interface TargetSide {
        void read(BucketJoin join) throws IOException;
    }

    static Comparison run(SourceSpec source, OffsetSnapshot committed, java.util.Collection<ArchivedRecord> archived, String targetName,
            TargetSide targetSide) {
        SourceReader reader = new SourceReader(source);
        Cut cut = reader.cutOrNow();
        try (BucketJoin join = new BucketJoin(cut.total())) {
            if (archived != null) {
                join.archived(source.topic(), archived);
            }
            long t0 = System.nanoTime();
            CompletableFuture<Long> targetRead = CompletableFuture.supplyAsync(() -> {
                try {
                    targetSide.read(join);
                    return System.nanoTime();
                } catch (IOException e) {
                    join.abandon();
                    throw new UncheckedIOException(e);
                } catch (RuntimeException e) {
                    join.abandon(); // a bad target (query, NULL, float, unreadable output) fails the comparison: the source read stops early
                    throw e;
                }
            });
            try {
                reader.readTo(cut, join, sourceSink(join));
            } catch (IOException | RuntimeException e) {
                join.abandon(); // the target read stops at its next row; its files are deleted only after it has
                try {
                    targetRead.join();
                } catch (CompletionException | CancellationException ignored) {
                    // the source's failure is the one to report
                }
                throw e;
            }
            long t1 = System.nanoTime();
            long t2 = join(targetRead);
            long t3 = System.nanoTime();
            Comparison c = join.judge(cut, targetName, committed);
            log.info("oracle: source {} ms, target {} ms (in parallel), compare {} ms: {}", (t1 - t0) / 1_000_000, (t2 - t0) / 1_000_000,
                    (System.nanoTime() - t3) / 1_000_000, c.counts());
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException("oracle scratch files failed: " + e.getMessage(), e);
        }
    }

    private static SourceReader.RecordSink sourceSink(BucketJoin join) {
        return new SourceReader.RecordSink() {
            @Override
            public void ok(int partition, long offset, String id, long amount) throws IOException {
                join.source(partition, offset, id, amount);
            }

            @Override
            public void malformed(int partition, long offset, String reason) {
                join.malformed(partition, offset, reason);
            }
        };
    }

    /** A side's result, its failure rethrown as itself (a scratch-file failure named as one). */
    static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw new UncheckedIOException("oracle scratch files failed: " + io.getCause().getMessage(), io.getCause());
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }
}
