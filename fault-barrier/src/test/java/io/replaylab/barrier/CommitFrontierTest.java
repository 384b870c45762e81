package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class CommitFrontierTest {
    @Test
    void aCommitAdvancesOnlyWhenItCarriesSomePartitionPastWhatTheCommitsBeforeItCarried() {
        CommitFrontier frontier = new CommitFrontier();

        assertThat(frontier.advances(List.of(new CommitOffset("t", 0, 0)))).as("offset 0 first: a record's own offset, no record covered").isFalse();
        assertThat(frontier.advances(List.of(new CommitOffset("t", 0, 1)))).as("past 0").isTrue();
        assertThat(frontier.advances(List.of(new CommitOffset("t", 0, 1)))).as("the same again: a timer's on an idle consumer").isFalse();
        assertThat(frontier.advances(List.of(new CommitOffset("t", 0, 1), new CommitOffset("t", 1, 4)))).as("another partition moves").isTrue();
        assertThat(frontier.advances(List.of(new CommitOffset("t", 0, 0), new CommitOffset("t", 1, 4)))).as("one went back, none past").isFalse();
        assertThat(frontier.advances(List.of(new CommitOffset("u", 1, 2)))).as("a partition of another topic is its own").isTrue();
    }
}
