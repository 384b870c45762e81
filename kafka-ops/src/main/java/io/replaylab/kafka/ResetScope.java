package io.replaylab.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

import io.replaylab.evidence.BadInputException;
import io.replaylab.evidence.Setting;

/**
 * Which partitions a reset covers: every topic the group has committed offsets for, or named
 * topics, optionally narrowed to partitions ({@code topic:0,2}), as {@code kafka-consumer-groups} takes them.
 */
public sealed interface ResetScope {
    /** The scopes as refusals name them. */
    Setting ALL_TOPICS = Setting.of("ResetScope", "allTopics");
    Setting TOPICS = Setting.of("ResetScope", "topics");

    static ResetScope allTopics() {
        return new AllTopics();
    }

    /** Each spec is {@code topic} or {@code topic:p,p}. */
    static ResetScope topics(List<String> specs) {
        if (specs.isEmpty()) {
            throw new BadInputException("give at least one topic (" + TOPICS + "), or use " + ALL_TOPICS, TOPICS, ALL_TOPICS);
        }
        List<TopicSelection> out = new ArrayList<>();
        for (String s : specs) {
            out.add(TopicSelection.parse(s));
        }
        return new Topics(out);
    }

    static ResetScope topics(String... specs) {
        return topics(List.of(specs));
    }

    String describe();

    /** All topics the group has committed offsets for. */
    record AllTopics() implements ResetScope {
        @Override
        public String describe() {
            return "all-topics";
        }
    }

    record Topics(List<TopicSelection> topics) implements ResetScope {
        public Topics {
            topics = List.copyOf(topics);
        }

        @Override
        public String describe() {
            return topics.stream().map(TopicSelection::toString).collect(Collectors.joining(" "));
        }
    }

    /** A topic and, if not empty, only these partitions. */
    record TopicSelection(String topic, List<Integer> partitions) {
        public TopicSelection {
            Objects.requireNonNull(topic, "topic");
            partitions = partitions.stream().distinct().sorted().toList();
        }

        static TopicSelection parse(String spec) {
            String s = spec.trim();
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                if (s.isEmpty()) {
                    throw new BadInputException("an empty topic (" + TOPICS + ")", TOPICS);
                }
                return new TopicSelection(s, List.of());
            }
            String topic = s.substring(0, colon);
            if (topic.isEmpty()) {
                throw new BadInputException("topic '" + spec + "' (" + TOPICS + ") has no topic name before ':'", TOPICS);
            }
            List<Integer> parts = new ArrayList<>();
            for (String p : s.substring(colon + 1).split(",")) {
                try {
                    int n = Integer.parseInt(p.trim());
                    if (n < 0) {
                        throw new NumberFormatException();
                    }
                    parts.add(n);
                } catch (NumberFormatException e) {
                    throw new BadInputException("topic '" + spec + "' (" + TOPICS + "): '" + p + "' is not a partition number (use topic:0,1)", TOPICS);
                }
            }
            return new TopicSelection(topic, parts);
        }

        @Override
        public String toString() {
            return partitions.isEmpty() ? topic : topic + ":" + partitions.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
    }
}
