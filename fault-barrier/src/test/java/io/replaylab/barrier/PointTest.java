package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Each point carries what only it knows; the technology that arms it reads it from there. */
class PointTest {
    @Test
    void theSqliteCommitReadsItsOwnResultCodes() {
        NativePoint.Returns returns = NativePoint.sqliteCommit().returns();
        assertThat(returns.classify("p", 101).verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        assertThat(returns.classify("p", 0).verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        CallOutcome busy = returns.classify("p", 5);
        assertThat(busy.verdict()).isEqualTo(CallOutcome.Verdict.REJECTED);
        assertThat(busy.errorName()).isEqualTo("SQLITE_BUSY");
        // an extended code (SQLITE_BUSY_SNAPSHOT = 517) is named by its primary code
        assertThat(returns.classify("p", 517).errorName()).isEqualTo("SQLITE_BUSY");
        assertThat(returns.classify("p", 77).message()).contains("code 77");
    }

    @Test
    void aPlainFunctionPointJudgesNoResultAndLoadsNoHelper() {
        NativePoint p = NativePoint.function("fsync");
        assertThat(p.returns().classify("p", -1).verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        assertThat(p.helper()).isNull();
        assertThat(p.context()).isEmpty();
        assertThat(NativePoint.sqliteCommit().helper()).as("the SQLite point's helper is on the class path")
                .satisfies(h -> assertThat(NativePoint.class.getResource(h)).isNotNull());
        assertThat(p.thatNeverHolds().returns()).isSameAs(p.returns());
    }

    @Test
    void onlyTheOffsetCommitReadsItsArgumentAsOffsets() {
        assertThat(MethodPoint.kafkaCommitSync().offsetsArgument()).contains(new MethodPoint.OffsetsArgument("topic", "partition", "offset"));
        assertThat(MethodPoint.kafkaCommitSync().onReturn().offsetsArgument()).isPresent();
        assertThat(MethodPoint.jdbcCommit().offsetsArgument()).isEmpty();
        assertThat(MethodPoint.parse("com.example.Store#commit").offsetsArgument()).isEmpty();
    }

    @Test
    void aWirePointNamesItsGroupAndItsHalfOfTheExchange() {
        assertThat(WirePoint.offsetCommit("g").describe()).isEqualTo("group g's OffsetCommit request on the wire");
        assertThat(WirePoint.offsetCommitAnswer("g").edge()).isEqualTo(WirePoint.Edge.ANSWER);
        assertThat(WirePoint.offsetCommitAnswer("g").describe()).contains("answer");
    }

    @Test
    void aShareAcknowledgementPointHoldsTheRequestOnlyAndSaysWhichRequestsCarryOne() {
        WirePoint p = WirePoint.shareAcknowledgement("q");
        assertThat(p.request()).isEqualTo(WirePoint.Request.SHARE_ACKNOWLEDGEMENT);
        assertThat(p.edge()).isEqualTo(WirePoint.Edge.REQUEST);
        assertThat(p.describe()).contains("share group q").contains("ShareAcknowledge").contains("ShareFetch");
        assertThat(new WirePoint("g", WirePoint.Edge.ANSWER)).isEqualTo(WirePoint.offsetCommitAnswer("g"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new WirePoint("q", WirePoint.Edge.ANSWER, WirePoint.Request.SHARE_ACKNOWLEDGEMENT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("share group q");
    }
}
