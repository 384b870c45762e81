package io.replaylab.kafka.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedSuccessfully;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;

import java.util.Map;

import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** {@link LocalKafkaTest} run by JUnit's own engine: real broker, parameters, cleanup after a pass, state kept (and named) after a failure. */
class LocalKafkaTestExtensionTest {
    @Test
    void aPassingTestLeavesNothingAndAFailingOneKeepsItsNamespaceAndNamesIt() throws Exception {
        Examples.seen.clear();
        Events events = EngineTestKit.engine("junit-jupiter").selectors(selectClass(Examples.class)).execute().testEvents();

        events.assertThatEvents().haveExactly(1, event(test("createsATopicAndPasses"), finishedSuccessfully()))
                .haveExactly(1, event(test("createsATopicAndFails"), finishedWithFailure(instanceOf(AssertionError.class))));
        Throwable failure = events.failed().list().get(0).getPayload(org.junit.platform.engine.TestExecutionResult.class).orElseThrow()
                .getThrowable().orElseThrow();
        String failedPrefix = Examples.seen.get("createsATopicAndFails");
        assertThat(failure.getSuppressed()).singleElement().satisfies(s -> assertThat(s.getMessage())
                .contains("kept for inspection").contains(failedPrefix));
        // the shared broker outlives that engine run; its state was checked inside the tests (see Examples.afterEach below)
        assertThat(Examples.topicsAfter).containsEntry("createsATopicAndPasses", false).containsEntry("createsATopicAndFails", true);
    }

    /** Run only through EngineTestKit above (a nested class: surefire does not pick it up). */
    @LocalKafkaTest
    static class Examples {
        static final Map<String, String> seen = new java.util.concurrent.ConcurrentHashMap<>();
        static final Map<String, Boolean> topicsAfter = new java.util.concurrent.ConcurrentHashMap<>();
        private static String bootstrap;
        private static String lastTopic;
        private static String lastTest;

        @Test
        void createsATopicAndPasses(LocalKafka kafka, LabNamespace ns, LabNamespace same, KafkaOps ops) {
            record(kafka, ns, "createsATopicAndPasses");
            assertThat(same).as("one namespace per test").isEqualTo(ns);
            assertThat(ops.describe(ns.group()).state().isInactive()).as("ops is connected").isTrue();
        }

        @Test
        void createsATopicAndFails(LocalKafka kafka, LabNamespace ns) {
            record(kafka, ns, "createsATopicAndFails");
            throw new AssertionError("a failing test");
        }

        private static void record(LocalKafka kafka, LabNamespace ns, String test) {
            checkPrevious();
            bootstrap = kafka.bootstrapServers();
            Clients.createTopic(bootstrap, ns.topic(), 1);
            seen.put(test, ns.prefix());
            lastTopic = ns.topic();
            lastTest = test;
        }

        @org.junit.jupiter.api.AfterAll
        static void checkPrevious() {
            if (lastTest == null) {
                return;
            }
            // a broker's metadata cache follows a topic's creation or deletion a moment later: look until it shows what the
            // test expects, for at most 10 s (a namespace that was wrongly deleted, or wrongly kept, still shows within that)
            boolean keep = lastTest.endsWith("Fails");
            try (Admin admin = Clients.admin(bootstrap)) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                boolean present = admin.listTopics().names().get().contains(lastTopic);
                while (present != keep && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    present = admin.listTopics().names().get().contains(lastTopic);
                }
                topicsAfter.put(lastTest, present);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            lastTest = null;
        }
    }
}
