package dev.sqlqueue.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest ({@code Implementation-Version}), "dev" when run from classes. */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Main.class.getPackage().getImplementationVersion();
        return new String[] {"sqlqueue " + (v == null ? "dev" : v), "Java " + Runtime.version()};
    }
}
