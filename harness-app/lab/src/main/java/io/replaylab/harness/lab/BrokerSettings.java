package io.replaylab.harness.lab;

import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.clients.consumer.GroupProtocol;

import io.replaylab.kafka.ClientProperties;

/**
 * The broker a run uses and how the lab and its subjects meet it (part of {@link LabSettings}).
 *
 * @param bootstrap  the cluster to use; empty: the run starts a local broker of its own
 * @param client     Kafka client properties (SASL, TLS) every client of the lab's own takes to reach {@code bootstrap}, and the
 *                   subjects find in the file of their {@code {command-config}} placeholder; secrets in them are never recorded
 * @param partitions partitions of each source topic the lab creates (2..1000: the rebalance needs two)
 * @param groupProtocol the consumer group protocol the subjects use
 * @param witness    whether subjects talk to the broker through the wire proxy as a witness of every
 *                   OffsetCommit and its answer, whatever the barrier; off, they connect straight to
 *                   the broker and the evidence cannot say who rejected a commit (the wire barrier
 *                   needs the proxy, so under it the witness stays)
 */
public record BrokerSettings(Optional<String> bootstrap, ClientProperties client, int partitions, GroupProtocol groupProtocol, boolean witness) {
    public BrokerSettings {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(groupProtocol, "groupProtocol");
        checkPartitions(partitions);
    }

    /** The builder's check of {@code LabSettings.partitions}, here so that a value made by hand is held to it too. */
    static int checkPartitions(int p) {
        if (p < 2 || p > 1000) {
            throw InvalidSettingsException.of("partitions", "must be 2..1000 (the rebalance needs two), was " + p);
        }
        return p;
    }
}
