package io.replaylab.barrier.wire;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the proxy saw of share groups (KIP-932), whether or not a barrier is armed: per-record state
 * that no Admin API exposes. Each ShareFetch answer's acquired records ({@link Delivery}: which
 * member and client got offsets {@code first..last} of a partition, with which delivery count), and
 * each acknowledgement a member sent ({@link Acknowledgement}: in a ShareAcknowledge or riding on a
 * ShareFetch, its type, and the broker's error for that partition, e.g. {@code INVALID_RECORD_STATE}
 * for a stale one: the record's lock expired and it went to another member).
 *
 * <pre>{@code
 * ShareWitness s = proxy.witness().share();
 * Optional<ShareWitness.Delivery> redelivered = s.awaitDelivery(d -> d.covers(topic, 0, 5) && d.deliveryCount() >= 2
 *         && !d.clientId().equals("A"), Duration.ofSeconds(10));
 * Optional<ShareWitness.Acknowledgement> stale = s.awaitAcknowledgement(a -> a.covers(topic, 0, 5) && a.clientId().equals("A")
 *         && a.refused(), Duration.ofSeconds(10));   // stale.get().error(): "INVALID_RECORD_STATE"
 * }</pre>
 *
 * <p>The ShareFetch and ShareAcknowledge requests and answers of every share group are read; one that
 * cannot be read is forwarded all the same (the witness only watches). Kept for the proxy's life.
 */
public final class ShareWitness {
    private static final Logger log = LoggerFactory.getLogger(ShareWitness.class);

    /** An acknowledgement's type, as the protocol numbers them (a gap, 0, is no acknowledgement and is left out). */
    public enum AckType {
        /** 1: processed; the record is done. */
        ACCEPT,
        /** 2: given back for another delivery (ARCHIVED instead once the delivery count limit is reached). */
        RELEASE,
        /** 3: unprocessable; the record is archived, never delivered again. */
        REJECT,
        /** 4: the lock is renewed (KIP-1222); the record stays acquired. */
        RENEW;

        /** The type of a protocol number; null for a gap (0) or a number this proxy does not know. */
        static AckType of(byte b) {
            return b >= 1 && b <= 4 ? values()[b - 1] : null;
        }
    }

    /**
     * Records a ShareFetch answer gave a member: offsets {@code firstOffset..lastOffset} (inclusive) of
     * {@code topic}-{@code partition}, acquired under a lock with {@code deliveryCount} (1: the first delivery).
     *
     * @param seq        the order in which the proxy recorded them, from 1 (one count with {@link Acknowledgement})
     * @param at         when the proxy read the answer
     * @param connection the client connection, as the proxy's log names it
     * @param clientId   the ShareFetch request's client id ({@code ""} when it sent none)
     * @param memberId   the member id the ShareFetch named
     */
    public record Delivery(long seq, Instant at, String connection, String clientId, String group, String memberId, String topic, int partition,
            long firstOffset, long lastOffset, int deliveryCount) {
        /** Whether it delivered {@code offset} of {@code topic}-{@code partition}. */
        public boolean covers(String topic, int partition, long offset) {
            return this.topic.equals(topic) && this.partition == partition && firstOffset <= offset && offset <= lastOffset;
        }

        /** {@code #4 client B member m-2 acquired t-0 5..5 delivery count 2}. */
        public String summary() {
            return "#" + seq + " client " + (clientId.isEmpty() ? "?" : clientId) + " member " + memberId + " acquired " + topic + "-" + partition
                    + " " + (firstOffset == lastOffset ? Long.toString(firstOffset) : firstOffset + ".." + lastOffset) + " delivery count "
                    + deliveryCount;
        }
    }

    /**
     * An acknowledgement a member sent, with the broker's answer for its partition.
     *
     * @param seq        the order in which the proxy learnt its fate, from 1 (one count with {@link Delivery})
     * @param sent       when the proxy read the request from the client
     * @param api        {@code ShareAcknowledge}, or {@code ShareFetch} when it rode on a fetch
     * @param held       a barrier held it (or it waited on its connection behind a held request)
     * @param fate       what became of the request ({@link WitnessedCommit.Fate#ANSWERED}: {@code error} says what the broker did)
     * @param error      the broker's error for the partition ({@code NONE}: acknowledged; a top-level error applies to every
     *                   partition), or the fault's error when {@code fate} is FAULTED; null when there is no answer
     * @param answered   when the answer came (null when there is none)
     */
    public record Acknowledgement(long seq, Instant sent, String connection, String clientId, String group, String memberId, String api,
            String topic, int partition, long firstOffset, long lastOffset, AckType type, boolean held, WitnessedCommit.Fate fate, String error,
            Instant answered) {
        public Acknowledgement {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(fate, "fate");
        }

        /** Whether it acknowledged {@code offset} of {@code topic}-{@code partition}. */
        public boolean covers(String topic, int partition, long offset) {
            return this.topic.equals(topic) && this.partition == partition && firstOffset <= offset && offset <= lastOffset;
        }

        /** The broker took it. */
        public boolean accepted() {
            return fate == WitnessedCommit.Fate.ANSWERED && "NONE".equals(error);
        }

        /** The broker refused it ({@link #error()} says why). */
        public boolean refused() {
            return fate == WitnessedCommit.Fate.ANSWERED && error != null && !"NONE".equals(error);
        }

        /** {@code #6 client A member m-1 ShareAcknowledge t-0 5 ACCEPT (held by a barrier): refused by the broker: INVALID_RECORD_STATE}. */
        public String summary() {
            String what = switch (fate) {
                case ANSWERED -> "NONE".equals(error) ? "acknowledged by the broker" : "refused by the broker: " + error;
                case NOT_SENT -> "never sent: the client closed the connection while it was held";
                case UNANSWERED -> "sent, no answer came back";
                case FAULTED -> error == null ? "the proxy closed the connection at it (fault)" : "answered by a fault: " + error;
                case IN_FLIGHT -> "on its way";
            };
            return "#" + seq + " client " + (clientId.isEmpty() ? "?" : clientId) + " member " + memberId + " " + api + " " + topic + "-" + partition
                    + " " + (firstOffset == lastOffset ? Long.toString(firstOffset) : firstOffset + ".." + lastOffset) + " " + type
                    + (held ? " (held by a barrier)" : "") + ": " + what;
        }
    }

    private final WireProxy proxy;
    private final AtomicLong seq = new AtomicLong();
    private final WitnessLog<Delivery> deliveries = new WitnessLog<>(Delivery::summary, null);
    private final WitnessLog<Acknowledgement> acknowledgements = new WitnessLog<>(Acknowledgement::summary, null);

    ShareWitness(WireProxy proxy) {
        this.proxy = proxy;
    }

    /** Every delivery to a member of {@code group} seen so far, in the order read. */
    public List<Delivery> deliveries(String group) {
        return deliveries.all(d -> d.group().equals(group));
    }

    /** The deliveries of one record of {@code group}, in the order read. */
    public List<Delivery> deliveries(String group, String topic, int partition, long offset) {
        return deliveries.all(d -> d.group().equals(group) && d.covers(topic, partition, offset));
    }

    /** The highest delivery count seen for one record of {@code group} (0: never seen delivered). */
    public int deliveryCount(String group, String topic, int partition, long offset) {
        return deliveries(group, topic, partition, offset).stream().mapToInt(Delivery::deliveryCount).max().orElse(0);
    }

    /** Every acknowledgement of {@code group} whose fate is known, in the order learnt. */
    public List<Acknowledgement> acknowledgements(String group) {
        return acknowledgements.all(a -> a.group().equals(group));
    }

    /** The acknowledgements of one record of {@code group} whose fate is known, in the order learnt. */
    public List<Acknowledgement> acknowledgements(String group, String topic, int partition, long offset) {
        return acknowledgements.all(a -> a.group().equals(group) && a.covers(topic, partition, offset));
    }

    /** The first delivery (seen so far or still to come) that {@code which} accepts, waiting up to {@code timeout}. */
    public Optional<Delivery> awaitDelivery(Predicate<Delivery> which, Duration timeout) throws InterruptedException {
        return deliveries.await(which, timeout);
    }

    /** The first acknowledgement with a known fate (so far or still to come) that {@code which} accepts, waiting up to {@code timeout}. */
    public Optional<Acknowledgement> awaitAcknowledgement(Predicate<Acknowledgement> which, Duration timeout) throws InterruptedException {
        return acknowledgements.await(which, timeout);
    }

    /** Called with each delivery as it is read (on a proxy thread: keep it short, never block). */
    public void onDelivery(Consumer<Delivery> listener) {
        deliveries.onEach(listener);
    }

    /** Called with each acknowledgement once its fate is known (on a proxy thread: keep it short, never block). */
    public void onAcknowledgement(Consumer<Acknowledgement> listener) {
        acknowledgements.onEach(listener);
    }

    // ---- package-private: fed by the connections

    /** A ShareFetch or ShareAcknowledge request read from a client: its answer (and fate) is told to the exchange. */
    Exchange sent(Connection c, ShareRequest r) {
        return new Exchange(c.toString(), r);
    }

    private void add(List<Delivery> ds, List<Acknowledgement> as) {
        // the acknowledgements first: whoever sees a delivery of an answer sees that answer's acknowledgements too
        acknowledgements.keep(as);
        deliveries.keep(ds);
        deliveries.tell(ds);
        acknowledgements.tell(as);
    }

    /** One share request on its way: its answer gives deliveries (ShareFetch) and the acknowledgements' fate; told once. */
    final class Exchange extends Witnessed {
        private final ShareRequest request;

        private Exchange(String connection, ShareRequest request) {
            super(connection);
            this.request = request;
        }

        @Override
        public void answered(ApiMessage m) {
            if (!endOnce()) {
                return;
            }
            Instant now = Instant.now();
            Map<String, String> errors = new HashMap<>(); // topic-partition → the acknowledgement's error
            String topError;
            List<Delivery> ds = new ArrayList<>();
            if (m instanceof ShareFetchResponseData r) {
                topError = Errors.forCode(r.errorCode()).name();
                for (ShareFetchResponseData.ShareFetchableTopicResponse t : r.responses()) {
                    String topic = topic(t.topicId());
                    for (ShareFetchResponseData.PartitionData p : t.partitions()) {
                        errors.put(topic + "-" + p.partitionIndex(), Errors.forCode(p.acknowledgeErrorCode()).name());
                        for (ShareFetchResponseData.AcquiredRecords a : p.acquiredRecords()) {
                            ds.add(new Delivery(seq.incrementAndGet(), now, connection, clientId(), request.group(), memberId(), topic, p.partitionIndex(),
                                    a.firstOffset(), a.lastOffset(), a.deliveryCount()));
                        }
                    }
                }
            } else {
                ShareAcknowledgeResponseData r = (ShareAcknowledgeResponseData) m;
                topError = Errors.forCode(r.errorCode()).name();
                for (ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse t : r.responses()) {
                    String topic = topic(t.topicId());
                    t.partitions().forEach(p -> errors.put(topic + "-" + p.partitionIndex(), Errors.forCode(p.errorCode()).name()));
                }
            }
            List<Acknowledgement> as = new ArrayList<>();
            for (ShareRequest.Ack a : request.acks()) {
                String error = !"NONE".equals(topError) ? topError : errors.get(a.topic() + "-" + a.partition());
                as.add(ack(a, error == null ? WitnessedCommit.Fate.UNANSWERED : WitnessedCommit.Fate.ANSWERED, error, error == null ? null : now));
            }
            add(ds, as);
        }

        @Override
        public void notSent() {
            end(WitnessedCommit.Fate.NOT_SENT, null);
        }

        @Override
        public void unanswered() {
            end(WitnessedCommit.Fate.UNANSWERED, null);
        }

        @Override
        public void faulted(String error) {
            end(WitnessedCommit.Fate.FAULTED, error);
        }

        private void end(WitnessedCommit.Fate fate, String error) {
            if (endOnce()) {
                add(List.of(), request.acks().stream().map(a -> ack(a, fate, error, error == null ? null : Instant.now())).toList());
            }
        }

        private Acknowledgement ack(ShareRequest.Ack a, WitnessedCommit.Fate fate, String error, Instant answered) {
            return new Acknowledgement(seq.incrementAndGet(), sent, connection, clientId(), request.group(), memberId(), request.api().name, a.topic(), a.partition(),
                    a.first(), a.last(), a.type(), wasHeld(), fate, error, answered);
        }

        private String clientId() {
            return request.clientId() == null ? "" : request.clientId();
        }

        private String memberId() {
            return request.memberId() == null ? "" : request.memberId();
        }

        private String topic(Uuid id) {
            return proxy.topicName(id);
        }
    }
}
