package io.replaylab.barrier.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.Injector;

/**
 * A {@link DataSource} decorator whose connections stop at a barrier before {@code commit()}
 * and/or right after it returned (either barrier may be null).
 */
public final class BarrierDataSource {
    private BarrierDataSource() {
    }

    public static DataSource wrap(DataSource delegate, Barrier beforeCommit, Barrier afterCommit) {
        return (DataSource) Proxy.newProxyInstance(BarrierDataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, delegate, args);
                    if (result instanceof Connection c && method.getName().equals("getConnection")) {
                        return connection(c, beforeCommit, afterCommit);
                    }
                    return result;
                });
    }

    private static Connection connection(Connection delegate, Barrier before, Barrier after) {
        return (Connection) Proxy.newProxyInstance(BarrierDataSource.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("commit")) {
                        return invoke(method, delegate, args);
                    }
                    Object r = Injector.around(before, Map.of("method", "commit", "when", "before"), List.of(), () -> method.invoke(delegate, args));
                    Injector.around(after, Map.of("method", "commit", "when", "after"), List.of(), () -> null);
                    return r;
                });
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
