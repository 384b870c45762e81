package io.replaylab.barrier.gdb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gdb process driven over its machine interface: commands with tokens and their results,
 * and the asynchronous records ({@code *stopped}, {@code =thread-group-exited}, ...) handed to a
 * handler on a thread of their own, so that a handler may itself send commands and wait.
 */
final class GdbSession implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GdbSession.class);

    private final Process process;
    private final OutputStream in;
    private final Thread reader;
    private final ExecutorService events;
    private final Map<Integer, CompletableFuture<Mi>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger tokens = new AtomicInteger(1);
    private final Deque<String> lastLines = new ArrayDeque<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    GdbSession(Process process, Consumer<Mi> onAsync) {
        this.process = process;
        this.in = process.getOutputStream();
        this.events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "gdb-events-" + process.pid());
            t.setDaemon(true);
            return t;
        });
        this.reader = new Thread(() -> read(onAsync), "gdb-reader-" + process.pid());
        this.reader.setDaemon(true);
        this.reader.start();
    }

    private void read(Consumer<Mi> onAsync) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                Mi mi;
                try {
                    mi = Mi.parse(line);
                } catch (RuntimeException e) {
                    log.debug("gdb line not understood: {} ({})", line, e.toString());
                    continue;
                }
                if (mi == null) {
                    continue;
                }
                if (mi.kind() == '~' || mi.kind() == '&' || mi.kind() == '?') {
                    synchronized (lastLines) {
                        lastLines.addLast(mi.text().strip());
                        if (lastLines.size() > 20) {
                            lastLines.removeFirst();
                        }
                    }
                    log.trace("gdb: {}", mi.text().strip());
                } else if (mi.kind() == '^' && mi.token() != null) {
                    CompletableFuture<Mi> f = pending.remove(mi.token());
                    if (f != null) {
                        f.complete(mi);
                    }
                } else if (mi.kind() == '*' || mi.kind() == '=') {
                    log.trace("gdb: {}", line);
                    events.execute(() -> {
                        try {
                            onAsync.accept(mi);
                        } catch (RuntimeException e) {
                            log.warn("native barrier: handling '{}' failed: {}", mi.klass(), e.toString(), e);
                        }
                    });
                }
            }
        } catch (IOException e) {
            log.debug("gdb output ended: {}", e.toString());
        } finally {
            IllegalStateException gone = new IllegalStateException("gdb ended (" + lastOutput() + ")");
            pending.values().forEach(f -> f.completeExceptionally(gone));
            pending.clear();
            ended.complete(null);
            events.execute(() -> onAsync.accept(new Mi('=', null, "gdb-exited", Map.of(), "")));
        }
    }

    /** Sends a command and waits for its result record; {@code ^error} throws with gdb's message. */
    Mi run(String command, Duration timeout) {
        Mi r = await(send(command), command, timeout);
        if ("error".equals(r.klass())) {
            throw new GdbError(command, r.string("msg"));
        }
        return r;
    }

    /** A gdb console command (e.g. {@code source}, {@code handle}) through the machine interface; its console output. */
    String console(String command, Duration timeout) {
        return run("-interpreter-exec console \"" + command.replace("\\", "\\\\").replace("\"", "\\\"") + "\"", timeout).text();
    }

    /** Sends a command; its result record completes the future. */
    CompletableFuture<Mi> send(String command) {
        int token = tokens.getAndIncrement();
        CompletableFuture<Mi> f = new CompletableFuture<>();
        if (ended.isDone()) {
            f.completeExceptionally(new IllegalStateException("gdb ended (" + lastOutput() + ")"));
            return f;
        }
        pending.put(token, f);
        try {
            synchronized (in) {
                in.write((token + command + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
        } catch (IOException e) {
            pending.remove(token);
            f.completeExceptionally(new IllegalStateException("gdb is gone: " + e.getMessage(), e));
        }
        return f;
    }

    static Mi await(CompletableFuture<Mi> f, String command, Duration timeout) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("gdb did not answer '" + command + "' within " + timeout);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for gdb's answer to '" + command + "'");
        }
    }

    boolean alive() {
        return process.isAlive() && !ended.isDone();
    }

    long pid() {
        return process.pid();
    }

    /** gdb's last console lines, for an error message. */
    String lastOutput() {
        synchronized (lastLines) {
            return lastLines.isEmpty() ? "no output" : String.join(" | ", List.copyOf(lastLines));
        }
    }

    /** Closes gdb's stdin (gdb detaches and quits on end of input), then waits, then kills what is left. */
    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException ignored) {
            // gone already
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                log.warn("gdb (pid {}) did not quit within 5 s of its input closing; killing it", process.pid());
                process.destroyForcibly();
            }
            reader.join(2000);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        events.shutdown();
    }

    /** gdb answered {@code ^error}. */
    static final class GdbError extends IllegalStateException {
        final String gdbMessage;

        GdbError(String command, String message) {
            super("gdb refused '" + command + "': " + message);
            this.gdbMessage = message == null ? "" : message;
        }
    }
}
