package dev.sqlqueue.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue man [COMMAND...]}: a man page (roff, section 1) built from the command's own picocli model, so it
 * never disagrees with {@code --help}; {@code --dir DIR} writes one page per command ({@code sqlqueue.1},
 * {@code sqlqueue-work.1}, ...).
 */
@Command(name = "man", sortOptions = false,
        description = {"Print the man page of sqlqueue or of one command, or write them all with --dir.",
            "Install: sqlqueue man --dir ~/.local/share/man/man1  (then: man sqlqueue-work)"})
public final class ManCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "COMMAND", description = "A command, for example work or 'dlq list'.")
    java.util.List<String> command = new java.util.ArrayList<>();

    @Option(names = "--dir", paramLabel = "DIR", description = "Write every page into DIR (created if missing).")
    Path dir;

    @Override
    public Integer call() throws IOException {
        CommandLine root = spec.root().commandLine();
        if (dir != null) {
            Files.createDirectories(dir);
            int n = write(root, dir);
            spec.commandLine().getOut().println("wrote " + n + " man pages to " + dir);
            spec.commandLine().getOut().flush();
            return ExitCodes.OK;
        }
        CommandLine target = root;
        for (String name : command) {
            CommandLine sub = target.getSubcommands().get(name);
            if (sub == null) {
                throw new CliException(ExitCodes.USAGE, "no command '" + String.join(" ", command) + "'; commands: "
                        + String.join(", ", target.getSubcommands().keySet()) + " [rule: command.unknown]");
            }
            target = sub;
        }
        spec.commandLine().getOut().print(page(target.getCommandSpec()));
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }

    private static int write(CommandLine cl, Path dir) throws IOException {
        CommandSpec s = cl.getCommandSpec();
        Files.writeString(dir.resolve(s.qualifiedName("-") + ".1"), page(s), StandardCharsets.UTF_8);
        int n = 1;
        for (Map.Entry<String, CommandLine> e : cl.getSubcommands().entrySet()) {
            if (e.getKey().equals(e.getValue().getCommandName()) && !e.getKey().equals("help")) {
                n += write(e.getValue(), dir);
            }
        }
        return n;
    }

    /** The roff page of one command. */
    static String page(CommandSpec s) {
        StringWriter w = new StringWriter();
        PrintWriter out = new PrintWriter(w);
        String name = s.qualifiedName("-");
        String[] version = s.root().version();
        out.println(".TH \"" + name.toUpperCase(java.util.Locale.ROOT) + "\" 1 \"\" \""
                + esc(version.length > 0 ? version[0] : "sqlqueue") + "\" \"sqlqueue manual\"");
        out.println(".SH NAME");
        String[] desc = s.usageMessage().description();
        out.println(esc(name) + " \\- " + esc(desc.length > 0 ? CommandLine.Help.Ansi.OFF.string(desc[0]) : ""));
        out.println(".SH SYNOPSIS");
        out.println(".nf");
        out.print(esc(new CommandLine.Help(s, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .synopsis(0)));
        out.println(".fi");
        if (desc.length > 0) {
            out.println(".SH DESCRIPTION");
            for (String d : desc) {
                out.println(esc(CommandLine.Help.Ansi.OFF.string(String.format(d))));
                out.println(".PP");
            }
        }
        if (!s.subcommands().isEmpty()) {
            out.println(".SH COMMANDS");
            s.subcommands().forEach((n, c) -> {
                if (n.equals(c.getCommandName())) {
                    String[] d = c.getCommandSpec().usageMessage().description();
                    out.println(".TP");
                    out.println("\\fB" + esc(n) + "\\fR");
                    out.println(esc(d.length > 0 ? CommandLine.Help.Ansi.OFF.string(d[0]) : ""));
                }
            });
        }
        if (!s.options().isEmpty()) {
            out.println(".SH OPTIONS");
            for (OptionSpec o : s.options()) {
                if (o.hidden()) {
                    continue;
                }
                out.println(".TP");
                out.println("\\fB" + esc(String.join(", ", o.names())) + "\\fR"
                        + (o.typeInfo().isBoolean() ? "" : " \\fI" + esc(o.paramLabel()) + "\\fR"));
                for (String d : o.description()) {
                    out.println(esc(d.replace("${DEFAULT-VALUE}", String.valueOf(o.defaultValue()))));
                }
            }
        }
        String[] footer = s.usageMessage().footer();
        if (footer.length > 0) {
            out.println(".SH NOTES");
            out.println(".nf");
            for (String f : footer) {
                out.println(esc(String.format(f)));
            }
            out.println(".fi");
        }
        out.println(".SH SEE ALSO");
        out.println("docs/cli.md in the sqlqueue sources; sqlqueue " + (s.parent() == null ? "COMMAND " : "") + "--help");
        out.flush();
        return w.toString();
    }

    /** Escapes roff: backslashes, and a leading dot or quote that roff would take for a request. */
    private static String esc(String s) {
        String t = s.replace("\\", "\\e").replace("-", "\\-");
        StringBuilder b = new StringBuilder();
        for (String line : t.split("\n", -1)) {
            if (b.length() > 0) {
                b.append('\n');
            }
            b.append(line.startsWith(".") || line.startsWith("'") ? "\\&" + line : line);
        }
        return b.toString();
    }
}
