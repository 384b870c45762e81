package io.replaylab.barrier.wire;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A fault aimed at requests on the Kafka wire: a {@link Target} (which kind of request, of which
 * group and client, the how-manyeth) and an {@link Effect} (what the proxy does with it instead of
 * forwarding it as it is). A value: armed on a proxy with {@link WireProxy#inject}.
 *
 * <p>Spelled as a spec: {@code api:effect[@n]}, e.g. {@code offset-commit:error=NOT_COORDINATOR@2},
 * {@code offset-fetch:rewind=5}, {@code heartbeat:error=REBALANCE_IN_PROGRESS@every},
 * {@code offset-commit:lost-answer}, {@code fetch:delay=2s}, {@code join-group:disconnect}.
 */
public record WireFault(Target target, Effect effect) {

    public WireFault {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(effect, "effect");
        effect.refuses(target.api()).ifPresent(why -> {
            throw new IllegalArgumentException(why);
        });
    }

    /** The kinds of request a fault can aim at. */
    public enum Api {
        OFFSET_COMMIT(ApiKeys.OFFSET_COMMIT), OFFSET_FETCH(ApiKeys.OFFSET_FETCH), HEARTBEAT(ApiKeys.HEARTBEAT), JOIN_GROUP(ApiKeys.JOIN_GROUP),
        SYNC_GROUP(ApiKeys.SYNC_GROUP), CONSUMER_GROUP_HEARTBEAT(ApiKeys.CONSUMER_GROUP_HEARTBEAT), FIND_COORDINATOR(ApiKeys.FIND_COORDINATOR),
        FETCH(ApiKeys.FETCH), PRODUCE(ApiKeys.PRODUCE);

        final ApiKeys key;

        Api(ApiKeys key) {
            this.key = key;
        }

        /** {@code offset-commit}. */
        public String spec() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** Kafka's name: {@code OffsetCommit}. */
        public String display() {
            return key.name;
        }

        /** Whether its requests name a group (Fetch and Produce do not: aim those at a client). */
        public boolean namesGroup() {
            return this != FETCH && this != PRODUCE;
        }

        static Api parse(String s) {
            for (Api a : values()) {
                if (a.spec().equals(s)) {
                    return a;
                }
            }
            throw new IllegalArgumentException("unknown request '" + s + "'; a fault aims at one of: "
                    + Arrays.stream(values()).map(Api::spec).collect(Collectors.joining(", ")));
        }
    }

    /**
     * Which requests: of this API, of {@code group} (null: any; ignored for Fetch and Produce,
     * which name none), from the client with {@code clientId} (null: any), of the member
     * {@code memberId} (null: any; requests that name no member never match one), and the
     * {@code nth} matching one (1: the first; 0: every one). A client's retry of the same request
     * is a new one. Two processes may share a client id (librdkafka's default is {@code rdkafka}
     * for all): a member id tells them apart.
     */
    public record Target(Api api, String group, String clientId, String memberId, int nth) {
        public Target {
            Objects.requireNonNull(api, "api");
            if (nth < 0) {
                throw new IllegalArgumentException("the n-th matching request starts at 1 (0: every one), was " + nth);
            }
        }

        /** The first request of this API, from any client, of any group. */
        public static Target of(Api api) {
            return new Target(api, null, null, null, 1);
        }

        public Target group(String g) {
            return new Target(api, g, clientId, memberId, nth);
        }

        public Target client(String id) {
            return new Target(api, group, id, memberId, nth);
        }

        public Target member(String id) {
            return new Target(api, group, clientId, id, nth);
        }

        public Target nth(int n) {
            return new Target(api, group, clientId, memberId, n);
        }

        public Target every() {
            return new Target(api, group, clientId, memberId, 0);
        }

        /** {@code first}, {@code every}, {@code 3rd}. */
        public String which() {
            return nth == 0 ? "every" : nth == 1 ? "first" : nth + (nth % 10 == 2 && nth % 100 != 12 ? "nd" : nth % 10 == 3 && nth % 100 != 13 ? "rd" : "th");
        }
    }

    /** What a connection does with the request a fault fired on. */
    public enum AtRequest {
        /** Close the connection at it; the request is never forwarded. */
        DISCONNECT,
        /** Send the broker a harmless stand-in under its correlation id, and the client the fault's own answer in its place. */
        ANSWER_IN_ITS_PLACE,
        /** Forward it; the effect acts on the broker's answer. */
        FORWARD
    }

    /** What a client reads back as its committed offsets after an effect: as stored, lower, or none. */
    public enum CommittedOffsets {
        AS_STORED, LOWERED, FORGOTTEN
    }

    /**
     * What the proxy does with a matching request. Each effect says what happens at the request
     * ({@link #atRequest()}) and at its answer ({@link #atAnswer}): a new effect is one new record
     * with both (or a record of a sealed kind that says the first, {@link Forwarded} or
     * {@link AnsweredByTheProxy}, the latter the second too), and one without them does not compile.
     */
    public sealed interface Effect {
        /** As a spec: {@code error=NOT_COORDINATOR}. */
        String spec();

        /** Why this effect cannot be aimed at {@code api}'s requests, or empty. */
        default Optional<String> refuses(Api api) {
            return Optional.empty();
        }

        /** The error the proxy answers in the request's place, if this effect is one. */
        default Optional<Errors> answeredError() {
            return Optional.empty();
        }

        /** Whether the proxy answers the request itself as the coordinator answers a live member (from what the witness saw). */
        default boolean answersAsALiveMember() {
            return false;
        }

        /** What the client reads back as its committed offsets after this effect fired. */
        default CommittedOffsets committedOffsets() {
            return CommittedOffsets.AS_STORED;
        }

        /** One line for a person. */
        String meaning();

        /** What the connection does with the request the fault fired on. */
        AtRequest atRequest();

        /** What the connection does with the broker's answer (for {@link AtRequest#ANSWER_IN_ITS_PLACE}: the answer to its stand-in). */
        void atAnswer(FaultedAnswer answer) throws java.io.IOException;

        /** An effect that answers the request itself: the broker gets a harmless stand-in, the client the proxy's own answer. */
        sealed interface AnsweredByTheProxy extends Effect {
            /** What the client was answered: {@code answered NOT_COORDINATOR}. */
            String answered();

            @Override
            default AtRequest atRequest() {
                return AtRequest.ANSWER_IN_ITS_PLACE;
            }

            @Override
            default void atAnswer(FaultedAnswer a) throws java.io.IOException {
                a.toClient(a.ownAnswer());
                a.done(answered() + " without forwarding it (the broker never saw it)");
            }
        }

        /** An effect on a forwarded request: it acts on the broker's answer. */
        sealed interface Forwarded extends Effect {
            @Override
            default AtRequest atRequest() {
                return AtRequest.FORWARD;
            }
        }

        /** Answer with this error without forwarding (per partition for OffsetCommit), built with the API's own response class for the request's version. */
        record Error(Errors error) implements AnsweredByTheProxy {
            public Error {
                Objects.requireNonNull(error, "error");
                if (error == Errors.NONE) {
                    throw new IllegalArgumentException("an error fault needs an error, was NONE");
                }
            }

            @Override
            public String spec() {
                return "error=" + error.name();
            }

            @Override
            public Optional<Errors> answeredError() {
                return Optional.of(error);
            }

            @Override
            public String meaning() {
                return "answered " + error.name() + " by the proxy, never forwarded";
            }

            @Override
            public String answered() {
                return "answered " + error.name();
            }
        }

        /** Forward, let the broker act, drop its answer and close the client's connection (an OffsetCommit is stored, and the client does not know). */
        record LostAnswer() implements Forwarded {
            @Override
            public String spec() {
                return "lost-answer";
            }

            @Override
            public String meaning() {
                return "forwarded; the broker's answer dropped and the client's connection closed";
            }

            @Override
            public void atAnswer(FaultedAnswer a) {
                a.witnessed(); // the witness reads what the broker did with it
                a.done("forwarded; the broker answered " + a.errors() + "; that answer was dropped and the client's connection closed");
                a.closeConnection();
            }
        }

        /** An effect on an OffsetFetch: forwarded, and the committed offsets in the broker's answer changed on their way back. */
        sealed interface OffsetFetchAnswer extends Forwarded {
            @Override
            default Optional<String> refuses(Api api) {
                return api == Api.OFFSET_FETCH ? Optional.empty() : Optional.of(spec().replaceFirst("=.*", "")
                        + " changes an OffsetFetch answer: its target must be offset-fetch, was " + api.spec());
            }
        }

        /** For OffsetFetch: the committed offsets answered {@code by} lower per partition (not below 0). */
        record Rewind(long by) implements OffsetFetchAnswer {
            public Rewind {
                if (by < 1) {
                    throw new IllegalArgumentException("rewind needs a number of offsets of at least 1, was " + by);
                }
            }

            @Override
            public String spec() {
                return "rewind=" + by;
            }

            @Override
            public CommittedOffsets committedOffsets() {
                return CommittedOffsets.LOWERED;
            }

            @Override
            public String meaning() {
                return "the committed offsets answered " + by + " lower per partition";
            }

            @Override
            public void atAnswer(FaultedAnswer a) throws java.io.IOException {
                a.done("answered the committed offsets lower: " + String.join(", ", a.rewindCommittedOffsets(by)));
            }
        }

        /**
         * For OffsetFetch: the group's committed offsets answered as none, as the broker answers once
         * {@code offsets.retention.minutes} expired them: the client's {@code auto.offset.reset} decides
         * where it starts (earliest: everything again; latest: the log end, past what nobody applied).
         */
        record Forget() implements OffsetFetchAnswer {
            @Override
            public String spec() {
                return "forget";
            }

            @Override
            public CommittedOffsets committedOffsets() {
                return CommittedOffsets.FORGOTTEN;
            }

            @Override
            public String meaning() {
                return "the committed offsets answered as none (expired), so the client's auto.offset.reset decides where it starts";
            }

            @Override
            public void atAnswer(FaultedAnswer a) throws java.io.IOException {
                a.done("answered no committed offset: " + String.join(", ", a.forgetCommittedOffsets()));
            }
        }

        /** The answer held for this long (everything behind it on that connection waits too). */
        record Delay(Duration by) implements Forwarded {
            public Delay {
                if (by == null || by.isNegative() || by.isZero()) {
                    throw new IllegalArgumentException("delay needs a positive duration, was " + by);
                }
            }

            @Override
            public String spec() {
                return "delay=" + by.toMillis() + "ms";
            }

            @Override
            public String meaning() {
                return "the answer held for " + by.toMillis() + " ms (with everything behind it on its connection)";
            }

            @Override
            public void atAnswer(FaultedAnswer a) throws java.io.IOException {
                try {
                    Thread.sleep(by.toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
                String errors = a.errors();
                a.toClient(a.witnessed());
                a.done("the broker's answer " + errors + " held " + by.toMillis() + " ms, then sent");
            }
        }

        /**
         * A heartbeat kept from the coordinator and answered by the proxy as the coordinator answers
         * a live member (no error; for the consumer protocol the member's own epoch and no new
         * assignment): the client believes it is in the group while the coordinator hears nothing,
         * so it drops the member after its session timeout, as if the whole process had stopped,
         * while the client's threads go on.
         */
        record Withhold() implements AnsweredByTheProxy {
            @Override
            public String spec() {
                return "withhold";
            }

            @Override
            public Optional<String> refuses(Api api) {
                return api == Api.HEARTBEAT || api == Api.CONSUMER_GROUP_HEARTBEAT ? Optional.empty()
                        : Optional.of("withhold answers a heartbeat as the coordinator answers a live member: its target must be heartbeat or "
                                + "consumer-group-heartbeat, was " + api.spec());
            }

            @Override
            public boolean answersAsALiveMember() {
                return true;
            }

            @Override
            public String meaning() {
                return "kept from the coordinator and answered as a live member's by the proxy (the coordinator drops the member after its session timeout)";
            }

            @Override
            public String answered() {
                return "answered as a live member's";
            }
        }

        /** The connection closed at the request, which is not forwarded. */
        record Disconnect() implements Effect {
            @Override
            public String spec() {
                return "disconnect";
            }

            @Override
            public String meaning() {
                return "the connection closed at the request, never forwarded";
            }

            @Override
            public AtRequest atRequest() {
                return AtRequest.DISCONNECT;
            }

            @Override
            public void atAnswer(FaultedAnswer a) {
                // never forwarded, so never answered: nothing comes back to act on
            }
        }
    }

    /** The valid effects, for a message. */
    public static final String EFFECTS = java.util.Arrays.stream(EffectKind.values()).map(k -> k.name + k.usage)
            .collect(java.util.stream.Collectors.joining(", "));

    /**
     * The effects by the names a spec gives them, each with how it is written and how it is made: the one list the parser
     * and its help come from (a test holds every {@link Effect} to one kind).
     */
    enum EffectKind {
        ERROR("error", "=CODE (a Kafka error name, e.g. NOT_COORDINATOR)", v -> new Effect.Error(error(v))),
        LOST_ANSWER("lost-answer", "", v -> new Effect.LostAnswer()),
        REWIND("rewind", "=N (offset-fetch only)", v -> new Effect.Rewind(Long.parseLong(Objects.requireNonNull(v, "rewind needs =N")))),
        FORGET("forget", " (offset-fetch only)", v -> new Effect.Forget()),
        DELAY("delay", "=D (e.g. 500ms, 2s)", v -> new Effect.Delay(duration(v))),
        DISCONNECT("disconnect", "", v -> new Effect.Disconnect()),
        WITHHOLD("withhold", " (heartbeat and consumer-group-heartbeat only)", v -> new Effect.Withhold());

        final String name;
        final String usage;
        final java.util.function.Function<String, Effect> make;

        EffectKind(String name, String usage, java.util.function.Function<String, Effect> make) {
            this.name = name;
            this.usage = usage;
            this.make = make;
        }
    }

    /**
     * Reads a spec {@code api:effect[@n|@every]}; the group and client come from whoever arms it
     * ({@link #at}). A bad spec is refused naming what was wrong and what is valid.
     */
    public static WireFault parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String s = spec.trim();
        int colon = s.indexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("fault '" + spec + "' must be api:effect[@n], e.g. offset-commit:error=NOT_COORDINATOR@2");
        }
        Api api = Api.parse(s.substring(0, colon));
        String rest = s.substring(colon + 1);
        int nth = 1;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String which = rest.substring(at + 1);
            rest = rest.substring(0, at);
            if (which.equals("every")) {
                nth = 0;
            } else {
                try {
                    nth = Integer.parseInt(which);
                } catch (NumberFormatException e) {
                    nth = -1;
                }
                if (nth < 1) {
                    throw new IllegalArgumentException("fault '" + spec + "': '@" + which + "' must be @N (N >= 1: the N-th matching request) or @every");
                }
            }
        }
        Effect effect = effect(rest, spec);
        try {
            return new WireFault(Target.of(api).nth(nth), effect);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fault '" + spec + "': " + e.getMessage() + "; the effects are: " + EFFECTS, e);
        }
    }

    private static Effect effect(String e, String spec) {
        int eq = e.indexOf('=');
        String name = eq < 0 ? e : e.substring(0, eq);
        String value = eq < 0 ? null : e.substring(eq + 1);
        try {
            return java.util.Arrays.stream(EffectKind.values()).filter(k -> k.name.equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown effect '" + name + "'")).make.apply(value);
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException("fault '" + spec + "': " + ex.getMessage() + "; the effects are: " + EFFECTS, ex);
        }
    }

    private static Errors error(String code) {
        if (code == null || code.isEmpty()) {
            throw new IllegalArgumentException("error needs =CODE");
        }
        for (Errors x : Errors.values()) {
            if (x.name().equals(code.toUpperCase(Locale.ROOT)) && x != Errors.NONE) {
                return x;
            }
        }
        throw new IllegalArgumentException("'" + code + "' is no Kafka error name (e.g. NOT_COORDINATOR, REBALANCE_IN_PROGRESS)");
    }

    private static Duration duration(String v) {
        if (v == null) {
            throw new IllegalArgumentException("delay needs =D");
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+)(ms|s)").matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("delay '" + v + "' must be a number with ms or s, e.g. 500ms, 2s");
        }
        long n = Long.parseLong(m.group(1));
        return m.group(2).equals("ms") ? Duration.ofMillis(n) : Duration.ofSeconds(n);
    }

    /** The same fault aimed at one group and one client (null: any). */
    public WireFault at(String group, String clientId) {
        return new WireFault(target.group(group).client(clientId), effect);
    }

    /** {@code offset-commit:error=NOT_COORDINATOR@2}. */
    public String spec() {
        return target.api().spec() + ":" + effect.spec() + (target.nth() == 1 ? "" : target.nth() == 0 ? "@every" : "@" + target.nth());
    }

    /** One line: {@code the first OffsetCommit of group g from client A: answered NOT_COORDINATOR by the proxy, never forwarded}. */
    public String meaning() {
        return "the " + target.which() + " " + target.api().display() + (target.nth() == 0 ? " requests" : "")
                + (target.group() == null || !target.api().namesGroup() ? "" : " of group " + target.group())
                + (target.clientId() == null ? "" : " from client " + target.clientId())
                + (target.memberId() == null ? "" : " of member " + target.memberId()) + ": " + effect.meaning();
    }
}
