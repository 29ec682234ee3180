package dev.sqlqueue.conformance.kit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Loads JDBC drivers (and any dialect or {@link KitHooks} jar) from jars that are not on the class path
 * ({@code --driver-path}): a {@link URLClassLoader} over the jars, used as the context class loader for
 * the run (so {@code ServiceLoader} lookups of backends and hooks see it), and every {@link Driver} it
 * holds registered with {@link DriverManager} through a {@link Shim}. The shim is needed because
 * {@code DriverManager} only hands a caller the drivers whose class the caller's own class loader can
 * load (java.sql.DriverManager, {@code isDriverAllowed}); the shim's class lives on the application class
 * path, the driver behind it does not.
 */
final class DriverLoader {
    private DriverLoader() {
    }

    /** The jars of {@code paths} (a directory stands for the jars directly in it). */
    static List<URL> jars(List<Path> paths) {
        List<URL> urls = new ArrayList<>();
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new IllegalArgumentException("driver-path: " + p + " does not exist");
            }
            try {
                if (Files.isDirectory(p)) {
                    try (Stream<Path> s = Files.list(p)) {
                        for (Path j : s.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
                            urls.add(j.toUri().toURL());
                        }
                    }
                } else {
                    urls.add(p.toUri().toURL());
                }
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("driver-path: " + p + ": " + e.getMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return urls;
    }

    /**
     * A class loader over {@code paths} whose drivers are registered with {@link DriverManager}; returns
     * the names of the drivers registered. The caller sets it as the context class loader.
     */
    static URLClassLoader load(List<Path> paths, ClassLoader parent, List<String> registered) throws SQLException {
        URLClassLoader cl = new URLClassLoader(jars(paths).toArray(URL[]::new), parent);
        for (Driver d : ServiceLoader.load(Driver.class, cl)) {
            if (d.getClass().getClassLoader() == cl) {
                DriverManager.registerDriver(new Shim(d));
                registered.add(d.getClass().getName() + " " + d.getMajorVersion() + "." + d.getMinorVersion());
            }
        }
        return cl;
    }

    /** A driver on the application class path that delegates to one from a foreign class loader. */
    static final class Shim implements Driver {
        private final Driver driver;

        Shim(Driver driver) {
            this.driver = driver;
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            return driver.connect(url, info);
        }

        @Override
        public boolean acceptsURL(String url) throws SQLException {
            return driver.acceptsURL(url);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
            return driver.getPropertyInfo(url, info);
        }

        @Override
        public int getMajorVersion() {
            return driver.getMajorVersion();
        }

        @Override
        public int getMinorVersion() {
            return driver.getMinorVersion();
        }

        @Override
        public boolean jdbcCompliant() {
            return driver.jdbcCompliant();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return driver.getParentLogger();
        }

        @Override
        public String toString() {
            return "DriverLoader.Shim[" + driver.getClass().getName() + "]";
        }
    }
}
