package io.replaylab.barrier.pg;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.Injector;
import io.replaylab.barrier.PgPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's session through the proxy: a thread per direction. The client's side reads the
 * startup (declining TLS and GSS encryption), then each message, holding a {@code COMMIT} at an armed
 * {@link PgPoint.Edge#REQUEST}; the server's side holds the answer to one at an armed
 * {@link PgPoint.Edge#ANSWER} and tells a held commit's barrier what became of it.
 */
final class PgConnection {
    private static final Logger log = LoggerFactory.getLogger(PgConnection.class);
    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    /** COMMIT, END, COMMIT WORK/TRANSACTION, with an optional semicolon: a transaction's end that applies it. */
    private static final Pattern COMMIT = Pattern.compile("(?is)\\s*(commit|end)(\\s+(work|transaction))?\\s*;?\\s*");

    private final int id;
    private final Socket client;
    private final Socket server;
    private final PgProxy proxy;
    /** The COMMITs sent and not answered yet, oldest first; each with the hold that held it, if one did. Guarded by itself. */
    private final Deque<Sent> commits = new ArrayDeque<>();
    /** The client's prepared statements' texts by name, and its portals' statements ("" is the unnamed one); client side only. */
    private final Map<String, String> statements = new java.util.HashMap<>();
    private final Map<String, String> portals = new java.util.HashMap<>();
    private volatile String database = "";
    private volatile String user = "";
    private volatile String application = "";
    /** The barrier holding this session now (its COMMIT or the answer to it), or null. */
    private volatile io.replaylab.barrier.Barrier holding;

    /** One message after the startup: its type byte and its body (the length is the body's plus 4). */
    private record Message(int type, byte[] body) {
        /** The next message, or null at the end of the stream. */
        static Message read(DataInputStream in) throws IOException {
            int type = in.read();
            if (type < 0) {
                return null;
            }
            int length = in.readInt();
            byte[] body = in.readNBytes(length - 4);
            return body.length < length - 4 ? null : new Message(type, body);
        }

        /** Passes it on; flushed once nothing more has come from {@code from}, so that what came goes on before that side waits. */
        void writeTo(DataOutputStream out, DataInputStream from) throws IOException {
            out.write(type);
            out.writeInt(body.length + 4);
            out.write(body);
            if (from.available() == 0) {
                out.flush();
            }
        }
    }

    /** A COMMIT on its way to the server: the statement, and the barrier that held it (null: none). */
    private record Sent(String statement, PgHold held) {
    }

    PgConnection(int id, Socket client, Socket server, PgProxy proxy) {
        this.id = id;
        this.client = client;
        this.server = server;
        this.proxy = proxy;
    }

    void start() {
        Thread up = new Thread(this::fromClient, "pg-proxy-" + id + "-client");
        Thread down = new Thread(this::fromServer, "pg-proxy-" + id + "-server");
        up.setDaemon(true);
        down.setDaemon(true);
        up.start();
        down.start();
    }

    private void fromClient() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream()));
             DataOutputStream toServer = new DataOutputStream(new BufferedOutputStream(server.getOutputStream()))) {
            if (!startup(in, toServer)) {
                return;
            }
            for (Message m = Message.read(in); m != null; m = Message.read(in)) {
                String statement = statement(m.type(), m.body());
                if (statement != null && COMMIT.matcher(statement).matches()) {
                    toServer.flush(); // the transaction's statements reach the server; its COMMIT may wait
                    PgHold held = hold(PgPoint.Edge.REQUEST, statement);
                    synchronized (commits) {
                        commits.add(new Sent(statement.trim(), held));
                    }
                }
                m.writeTo(toServer, in);
            }
        } catch (IOException e) {
            log.debug("{}: the client's side ended: {}", this, e.toString());
        } finally {
            close();
        }
    }

    /** The startup: encryption requests answered "no", a cancel passed on, the startup message's parameters read. False: nothing follows. */
    private boolean startup(DataInputStream in, DataOutputStream toServer) throws IOException {
        while (true) {
            int length = in.readInt();
            if (length < 8 || length > 10_000) {
                log.warn("{}: a startup packet of {} bytes is no PostgreSQL client's; closing", this, length);
                return false;
            }
            byte[] rest = in.readNBytes(length - 4);
            int code = ((rest[0] & 0xff) << 24) | ((rest[1] & 0xff) << 16) | ((rest[2] & 0xff) << 8) | (rest[3] & 0xff);
            if (code == SSL_REQUEST || code == GSS_REQUEST) {
                proxy.declinedEncryption();
                client.getOutputStream().write('N');
                client.getOutputStream().flush();
                continue;
            }
            toServer.writeInt(length);
            toServer.write(rest);
            toServer.flush();
            if (code == CANCEL_REQUEST) {
                return false;
            }
            Map<String, String> params = parameters(rest);
            database = params.getOrDefault("database", params.getOrDefault("user", ""));
            user = params.getOrDefault("user", "");
            application = params.getOrDefault("application_name", "");
            return true;
        }
    }

    private static Map<String, String> parameters(byte[] startup) {
        Map<String, String> out = new TreeMap<>();
        int i = 4;
        while (i < startup.length && startup[i] != 0) {
            int k = i;
            while (startup[i] != 0) {
                i++;
            }
            String key = new String(startup, k, i - k, StandardCharsets.UTF_8);
            int v = ++i;
            while (i < startup.length && startup[i] != 0) {
                i++;
            }
            out.put(key, new String(startup, v, i - v, StandardCharsets.UTF_8));
            i++;
        }
        return out;
    }

    /**
     * The statement a message runs: a simple Query's text, or, in the extended protocol, the text of the statement an
     * Execute's portal was bound to (a client may prepare COMMIT once on the server and then only bind and execute it, as
     * pgjdbc does after a few); null for any other message. Parse and Bind are remembered on the way (client side only).
     */
    private String statement(int type, byte[] body) {
        switch (type) {
            case 'Q' -> {
                return cString(body, 0);
            }
            case 'P' -> {
                String name = cString(body, 0);
                statements.put(name, cString(body, name.getBytes(StandardCharsets.UTF_8).length + 1));
                return null;
            }
            case 'B' -> {
                String portal = cString(body, 0);
                portals.put(portal, cString(body, portal.getBytes(StandardCharsets.UTF_8).length + 1));
                return null;
            }
            case 'E' -> {
                String statement = portals.get(cString(body, 0));
                return statement == null ? null : statements.get(statement);
            }
            default -> {
                return null;
            }
        }
    }

    private static String cString(byte[] b, int from) {
        int end = from;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, from, Math.max(0, end - from), StandardCharsets.UTF_8);
    }

    /** Holds this connection's flow (the calling direction) at an armed point of {@code edge}, if there is one; the hold that did. */
    private PgHold hold(PgPoint.Edge edge, String statement) {
        PgHold h = proxy.take(edge, database);
        if (h == null) {
            return null;
        }
        Map<String, String> context = new TreeMap<>();
        context.put("statement", statement.trim());
        context.put("database", database);
        context.put("user", user);
        context.put("application_name", application);
        context.put("connection", toString());
        context.put("client.port", Integer.toString(client.getPort())); // whose session: the port a process on this host holds
        Arrival a = new Arrival(h.barrier().point(), "session " + id + (application.isEmpty() ? "" : " (" + application + ")"), context, List.of(),
                List.of(edge == PgPoint.Edge.REQUEST ? "COMMIT on " + this : "the answer to COMMIT on " + this), java.time.Instant.now(),
                System.nanoTime());
        Injector injector = Injector.of(h.barrier());
        if (!injector.reach(a)) {
            proxy.putBack(h);
            return null;
        }
        log.info("{}: {} held at {}", this, statement.trim(), h.barrier().point());
        holding = h.barrier();
        try {
            injector.holdUntilReleased();
        } finally {
            holding = null;
        }
        return h;
    }

    private void fromServer() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(server.getInputStream()));
             DataOutputStream toClient = new DataOutputStream(new BufferedOutputStream(client.getOutputStream()))) {
            for (Message m = Message.read(in); m != null; m = Message.read(in)) {
                if (m.type() == 'C' || m.type() == 'E') {
                    answered(m.type(), m.body(), toClient);
                }
                m.writeTo(toClient, in);
            }
        } catch (IOException e) {
            log.debug("{}: the server's side ended: {}", this, e.toString());
        } finally {
            close();
        }
    }

    /**
     * A CommandComplete or an ErrorResponse: when it answers the oldest COMMIT sent, the commit's barrier (if one held it)
     * hears what became of it, and an armed answer point holds the answer before the client gets it.
     */
    private void answered(int type, byte[] body, DataOutputStream toClient) throws IOException {
        String tag = type == 'C' ? cString(body, 0) : null;
        boolean ends = type == 'E' || tag.startsWith("COMMIT") || tag.startsWith("ROLLBACK");
        Sent sent;
        synchronized (commits) {
            sent = ends ? commits.poll() : null;
        }
        if (sent == null) {
            return;
        }
        String error = type == 'E' ? field(body, 'C') + " " + field(body, 'M') : null;
        if (sent.held() != null) {
            Injector injector = Injector.of(sent.held().barrier());
            injector.recordOutcome(error != null ? CallOutcome.rejected(sent.held().barrier().point(), "SQLSTATE " + field(body, 'C'), field(body, 'M'))
                    : tag.startsWith("ROLLBACK") ? CallOutcome.rejected(sent.held().barrier().point(), "ROLLBACK",
                            "the server rolled the transaction back (it had failed before the COMMIT)")
                    : CallOutcome.accepted(sent.held().barrier().point()));
        }
        if (error == null && tag.startsWith("COMMIT")) {
            toClient.flush(); // what came before the answer reaches the client; the answer waits
            PgHold held = hold(PgPoint.Edge.ANSWER, sent.statement());
            if (held != null) {
                Injector.of(held.barrier()).recordOutcome(CallOutcome.accepted(held.barrier().point()));
            }
        }
    }

    /** A field of an ErrorResponse ({@code C}: the SQLSTATE, {@code M}: the message); empty when absent. */
    private static String field(byte[] body, char code) {
        int i = 0;
        while (i < body.length && body[i] != 0) {
            char f = (char) body[i];
            int start = i + 1;
            int end = start;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            if (f == code) {
                return new String(body, start, end - start, StandardCharsets.UTF_8);
            }
            i = end + 1;
        }
        return "";
    }

    /** Whether {@code b} holds this session now. */
    boolean heldBy(io.replaylab.barrier.Barrier b) {
        return holding == b;
    }

    void close() {
        try {
            client.close();
        } catch (IOException ignored) {
            // closing
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        proxy.ended(this);
    }

    @Override
    public String toString() {
        return "pg connection " + id + " (client port " + client.getPort() + ")";
    }
}
