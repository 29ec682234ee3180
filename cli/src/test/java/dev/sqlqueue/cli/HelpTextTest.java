package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The help text of every command (issue 34, "Help text": broken wraps, options without a description, option order
 * that differs between subcommands), as {@code sqlqueue CMD --help} prints it at picocli's default width of 80.
 */
class HelpTextTest {
    /** The options every connecting command shares, in the order its help lists them, after its own options. */
    private static final List<String> SHARED = List.of(
            "--url", "--user", "--password", "--backend", "--table-prefix", "--option", "--verbose", "--help", "--version");

    private static List<CommandLine> commands() {
        CommandLine root = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        List<CommandLine> all = new ArrayList<>();
        collect(root, all);
        return all;
    }

    private static void collect(CommandLine cl, List<CommandLine> all) {
        all.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (!all.contains(sub)) {
                collect(sub, all);
            }
        }
    }

    private static String path(CommandLine cl) {
        return cl.getCommandSpec().qualifiedName();
    }

    @Test
    void everyOptionAndParameterHasADescription() {
        List<String> bare = new ArrayList<>();
        for (CommandLine cl : commands()) {
            for (ArgSpec arg : cl.getCommandSpec().args()) {
                if (arg.hidden()) {
                    continue;
                }
                String text = String.join(" ", arg.description()).strip();
                if (text.isEmpty()) {
                    bare.add(path(cl) + " " + (arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel()));
                }
            }
        }
        assertEquals(List.of(), bare, "options and parameters without a description");
    }

    /** The options in the order the help prints them: the first name on each line of the option list. */
    private static List<String> printedOrder(CommandLine cl) {
        List<String> names = new ArrayList<>();
        for (String line : cl.getUsageMessage().split("\n")) {
            java.util.regex.Matcher m = OPTION_LINE.matcher(line);
            if (m.find()) {
                OptionSpec o = cl.getCommandSpec().findOption(m.group(1).replace("[no-]", ""));
                if (o != null && !names.contains(o.longestName())) {
                    names.add(o.longestName());
                }
            }
        }
        return names;
    }

    private static final java.util.regex.Pattern OPTION_LINE =
            java.util.regex.Pattern.compile("^ {2,6}(?:-[A-Za-z], )*(--(?:\\[no-\\])?[a-z][a-z-]*)");

    @Test
    void sharedOptionsComeLastInOneOrder() {
        List<String> wrong = new ArrayList<>();
        for (CommandLine cl : commands()) {
            List<String> shown = printedOrder(cl);
            if (!shown.contains("--url")) {
                continue;
            }
            List<String> shared = shown.stream().filter(SHARED::contains).toList();
            List<String> expected = new ArrayList<>(shown.stream().filter(n -> !SHARED.contains(n)).toList());
            expected.addAll(SHARED.stream().filter(shared::contains).toList());
            if (!expected.equals(shown)) {
                wrong.add(path(cl) + ": " + shown);
            }
        }
        assertTrue(commands().stream().filter(c -> printedOrder(c).contains("--url")).count() >= 10,
                "the option lines were found in the help of the connecting commands");
        assertEquals(List.of(), wrong, "commands whose help lists options in another order");
    }

    /**
     * Every word of a description appears whole in the printed help: the wrap never cuts {@code 1..1000},
     * {@code ./.sqlqueue/} or {@code [a-z][a-z0-9_]*} between two lines.
     */
    @Test
    void noWordOfADescriptionIsCutByTheWrap() {
        List<String> cut = new ArrayList<>();
        for (CommandLine cl : commands()) {
            String usage = cl.getUsageMessage();
            Set<String> printed = new HashSet<>(Arrays.asList(usage.split("\\s+")));
            List<String> texts = new ArrayList<>(Arrays.asList(cl.getCommandSpec().usageMessage().description()));
            cl.getCommandSpec().args().stream().filter(a -> !a.hidden())
                    .forEach(a -> texts.addAll(Arrays.asList(a.description())));
            for (String text : texts) {
                for (String word : text.split("\\s+")) {
                    if (word.isEmpty() || word.contains("${") || word.contains("%") || word.contains("@|")) {
                        continue; // picocli variables and markup are rendered, not printed as written
                    }
                    if (!printed.contains(word)) {
                        cut.add(path(cl) + ": '" + word + "'");
                    }
                }
            }
        }
        assertTrue(cut.isEmpty(), "words cut by the wrap: " + cut);
    }
}
