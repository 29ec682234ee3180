package dev.sqlqueue.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue completion bash|zsh}: prints the shell completion script picocli generates from the command's own
 * model (every subcommand, option and enum value). The script is bash's; zsh loads it through {@code bashcompinit},
 * which the script calls itself when it runs in zsh.
 */
@Command(name = "completion", sortOptions = false,
        description = {"Print a bash or zsh completion script for sqlqueue.",
            "bash: D=~/.local/share/bash-completion/completions; mkdir -p $D",
            "      sqlqueue completion bash > $D/sqlqueue",
            "zsh:  sqlqueue completion zsh > ~/.zsh/completions/sqlqueue.zsh and source it from ~/.zshrc"})
public final class CompletionCommand implements Callable<Integer> {
    /** The shells a script is generated for. */
    enum Shell { bash, zsh }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
    Shell shell;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        // the same script serves both: picocli's script runs 'autoload -U +X bashcompinit && bashcompinit' under zsh
        out.print(AutoComplete.bash("sqlqueue", spec.root().commandLine()));
        out.flush();
        return ExitCodes.OK;
    }
}
