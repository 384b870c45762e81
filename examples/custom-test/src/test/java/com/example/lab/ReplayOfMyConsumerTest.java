package com.example.lab;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.junit.RecordEvidence;
import io.replaylab.kafka.ExecuteResetOptions;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.ResetPlan;
import io.replaylab.kafka.ResetResult;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What another lab writes: its own consumer ({@link MyConsumer}), a real broker from
 * {@code @LocalKafkaTest}, a reset through {@code KafkaOps}, the target judged by the {@code Oracle},
 * and the protocol left by {@code @RecordEvidence} under {@code target/replay-lab/}.
 */
@LocalKafkaTest
@RecordEvidence(requirements = {"R5", "R6"})
class ReplayOfMyConsumerTest {
    @TempDir
    Path dir;

    @Test
    void replayAddsNoSecondEffect(LocalKafka kafka, LabNamespace ns, KafkaOps ops, ExperimentRecorder e) throws Exception {
        String bootstrap = kafka.bootstrapServers();
        Path db = dir.resolve("target.db");
        produce(bootstrap, ns.topic(), 40);
        long first = MyConsumer.drain(bootstrap, ns.topic(), ns.group(), db);

        // reset the (now inactive) group to the start: dry run, then execute through the guards, the plan saved first
        ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
        ResetResult reset = ops.executeReset(plan, ExecuteResetOptions.custom().allowPrefix(ns.prefix()).planDir(dir.resolve("plans")).build());
        long again = MyConsumer.drain(bootstrap, ns.topic(), ns.group(), db);
        Event redelivered = e.record(Source.here("test"), new Payload.Note("first pass " + first + ", after the reset " + again));

        e.check(Check.of("reset landed on every partition", "R5", "all landed", reset.allLanded() ? "all landed" : "not all", reset.allLanded()));
        e.check(Check.of("records delivered again", "R5", "40", Long.toString(again), again == 40));
        try (Target target = Target.open(TargetSpec.sqlite(db, "my-consumer").query(MyConsumer.TARGET_QUERY))) {
            Oracle.of(SourceSpec.topic(bootstrap, ns.topic()), target).compare(ops.describe(ns.group())).toChecks().forEach(e::check);
        }
        e.finish(Outcome.judge(e.confirmFault("every record delivered again after the reset", redelivered), e.checks()));
    }

    private static void produce(String bootstrap, String topic, int count) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        }
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "acc-" + i % 3, "{\"id\": \"pay-" + i + "\", \"amount\": " + (i * 7 - 20) + "}"))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }
}
