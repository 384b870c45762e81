package io.replaylab.evidence.process;

import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/** A child JVM that loads classes from a jar (Jackson) and prints a line. */
public final class ClassDataChildMain {
    public static void main(String[] args) throws Exception {
        System.out.println("child says " + new ObjectMapper().writeValueAsString(Map.of("a", 1)));
    }
}
