package io.replaylab.evidence.process;

/** A JVM for {@link ChildProcessTest}: says it ran, then waits to be stopped. */
public final class HelloMain {
    public static void main(String[] args) throws InterruptedException {
        System.out.println("main ran");
        System.out.flush();
        Thread.sleep(60_000);
    }
}
