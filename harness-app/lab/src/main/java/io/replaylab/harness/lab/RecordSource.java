package io.replaylab.harness.lab;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.replaylab.oracle.RecordParser;
import io.replaylab.oracle.SourceMapping;

/**
 * What fills each experiment's source topic and how the oracle reads it back. Three kinds:
 * <ul>
 *   <li>{@link #reference()}: the lab's deterministic payments, {@code {"id","account","amount"}} keyed
 *       by account (the default);</li>
 *   <li>{@link #shaped(String, String)}: the lab's deterministic payments in the user's shape, e.g.
 *       key {@code {id}}, value {@code {"paymentId":"{id}","amountCents":{amount},"currency":"EUR"}};</li>
 *   <li>{@link #producer(Subject)}: the user's own producer, run once per source topic; what the topic
 *       then holds IS the source set.</li>
 * </ul>
 * Each carries the {@link SourceMapping} the oracle reads the records with ({@link #mapping(SourceMapping)};
 * default the reference shape's). A run always reads the source set back from the topic, never from a count.
 */
public final class RecordSource {
    /** The producer command, as refusals name it. */
    public static final io.replaylab.evidence.Setting PRODUCER = io.replaylab.evidence.Setting.of("RecordSource", "producer")
            .saidAs("the producer command");
    /** The placeholders of a producer command. */
    public static final java.util.List<String> PRODUCER_PLACEHOLDERS = java.util.List.of("{bootstrap}", "{topic}", "{count}", "{namespace}", "{command-config}");

    private final Subject producer;
    private final String keyTemplate;
    private final String valueTemplate;
    private final SourceMapping mapping;
    private final boolean aborted;

    private RecordSource(Subject producer, String keyTemplate, String valueTemplate, SourceMapping mapping, boolean aborted) {
        this.producer = producer;
        this.keyTemplate = keyTemplate;
        this.valueTemplate = valueTemplate;
        this.mapping = Objects.requireNonNull(mapping, "mapping");
        this.aborted = aborted;
    }

    /**
     * The same source with records of aborted transactions among its own, as real transactional
     * producers leave them: the records go in committed transactions, and between them transactions
     * that are aborted, each with one record per partition under ids no committed record has
     * ({@code <namespace>-aborted-<n>}). The lab's payments are written so directly; a producer
     * command's records are written by it into a topic of their own ({@code <topic>.produced}) and
     * copied, the aborted ones being copies of its records with the fresh id written where the
     * source mapping reads it. The oracle expects effects of committed records only; a consumer that
     * applies an aborted one ({@code isolation.level=read_uncommitted}) FAILs naming it.
     */
    public RecordSource withAbortedTransactions() {
        return new RecordSource(producer, keyTemplate, valueTemplate, mapping, true);
    }

    /** Whether the lab writes aborted transactions among the records. */
    public boolean abortedTransactions() {
        return aborted;
    }

    /** Whether its topics may hold transactions (markers, aborted records): the lab's with aborted ones, or a producer command's. */
    boolean mayHoldTransactions() {
        return aborted || producer != null;
    }

    /** The lab's own payments in the reference shape, read with the reference mapping. */
    public static RecordSource reference() {
        return new RecordSource(null, null, null, SourceMapping.REFERENCE, false);
    }

    /**
     * The lab's own deterministic payments rendered in the user's shape: {@code {id}}, {@code {amount}}
     * and {@code {account}} in either template are filled as JSON-safe text ({@code {amount}} in the
     * mapping's scale: 1250 minor units render {@code 12.50} with scale 2). A null key template keeps
     * the account as the key. Give the mapping that reads the shape back ({@link #mapping}).
     */
    public static RecordSource shaped(String keyTemplate, String valueTemplate) {
        if (valueTemplate == null || valueTemplate.isBlank()) {
            throw InvalidSettingsException.of("source", "needs a record value template, was empty");
        }
        return new RecordSource(null, keyTemplate, valueTemplate, SourceMapping.REFERENCE, false);
    }

    /**
     * The user's own producer, one run per source topic, after the lab created the topic: placeholders
     * {@code {bootstrap}} {@code {topic}} {@code {count}} {@code {namespace}} (in its command or its
     * environment). A non-zero exit, or no record in the topic, makes the experiment NOT_RUN.
     */
    public static RecordSource producer(Subject command) {
        Objects.requireNonNull(command, "command");
        if (!command.uses("{topic}")) {
            throw new io.replaylab.evidence.BadInputException(PRODUCER + " must get {topic} through its command or its environment: "
                    + "the lab creates each experiment's topic and the producer fills it", PRODUCER);
        }
        return new RecordSource(command, null, null, SourceMapping.REFERENCE, false);
    }

    /** The same source read with {@code m}. */
    public RecordSource mapping(SourceMapping m) {
        return new RecordSource(producer, keyTemplate, valueTemplate, m, aborted);
    }

    public SourceMapping mapping() {
        return mapping;
    }

    /** The oracle's parser for this source. */
    public RecordParser parser() {
        return mapping.parser();
    }

    /** The user's producer, if it is one. */
    public Optional<Subject> producer() {
        return Optional.ofNullable(producer);
    }

    /** Whether it is the default: the lab's payments in the reference shape, read as such. */
    public boolean isReference() {
        return producer == null && valueTemplate == null && mapping.isReference() && !aborted;
    }

    /** The key and value of one of the lab's payments, in this source's shape. */
    public Map.Entry<String, String> render(String id, String account, long amount, String referenceValue) {
        if (valueTemplate == null) {
            return Map.entry(account, referenceValue);
        }
        Map<String, String> values = Map.of("id", jsonSafe(id), "account", jsonSafe(account),
                "amount", BigDecimal.valueOf(amount, mapping.amountScale()).toPlainString());
        String key = keyTemplate == null ? account : io.replaylab.evidence.process.ChildProcess.render(keyTemplate, values);
        return Map.entry(key, io.replaylab.evidence.process.ChildProcess.render(valueTemplate, values));
    }

    /**
     * Refuses a shape the mapping cannot read back: one sample payment is rendered and parsed; its
     * id and amount must come back. Nothing runs before this passes.
     */
    void check() {
        if (valueTemplate == null) {
            return;
        }
        String id = "sample-1";
        long amount = 1250;
        Map.Entry<String, String> kv = render(id, "acc-0", amount, null);
        RecordParser.Parsed p = parser().parse(kv.getKey() == null ? null : kv.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                kv.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        if (!p.ok()) {
            throw InvalidSettingsException.of("source", "has a record shape that does not read back with the source mapping (" + mapping + "): "
                    + p.malformedReason() + "; rendered key " + kv.getKey() + ", value " + kv.getValue());
        }
        if (!p.id().equals(id) || p.amount() != amount) {
            throw InvalidSettingsException.of("source", "has a record shape that reads back as id " + p.id() + ", amount " + p.amount() + " instead of id " + id
                    + ", amount " + amount + " with the source mapping (" + mapping + "); rendered key " + kv.getKey() + ", value " + kv.getValue());
        }
    }

    /** Text that stays valid inside a JSON string (the template supplies the quotes). */
    private static String jsonSafe(String s) {
        return new String(com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsString(s));
    }

    @Override
    public String toString() {
        return plain() + (aborted ? ", with aborted transactions among them" : "");
    }

    private String plain() {
        if (producer != null) {
            return "the producer command " + producer.description() + ", read with " + mapping;
        }
        if (valueTemplate != null) {
            return "the lab's payments as key " + (keyTemplate == null ? "{account}" : keyTemplate) + ", value " + valueTemplate + ", read with " + mapping;
        }
        return mapping.isReference() ? "the lab's reference payments" : "the lab's reference payments, read with " + mapping;
    }
}
