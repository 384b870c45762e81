package io.replaylab.kafka.testing;

import java.time.Duration;

import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.OffsetSnapshot;

/** Waits on a group's description, for tests that move partitions between real consumers. */
public final class Groups {
    private Groups() {
    }

    /** Waits until the member with this client id owns partitions and no other member does (the handoff is complete). */
    public static void awaitSoleOwner(String bootstrap, String group, String clientId, Duration timeout) throws InterruptedException {
        try (KafkaOps ops = KafkaOps.connect(bootstrap)) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                OffsetSnapshot s = ops.describe(group);
                if (s.members().stream().anyMatch(m -> m.clientId().equals(clientId) && !m.assignment().isEmpty())
                        && s.members().stream().noneMatch(m -> !m.clientId().equals(clientId) && !m.assignment().isEmpty())) {
                    return;
                }
                Thread.sleep(250);
            }
            throw new AssertionError(clientId + " never owned the partitions alone within " + timeout + ": "
                    + ops.describe(group).members().stream().map(GroupMember::toString).toList());
        }
    }
}
