package dev.mosaic.deploy;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One execution of the {@code mosaic} command line in this JVM: exit code, output, errors. */
record CommandRun(int exitCode, String out, String err) {
  static CommandRun of(String... args) {
    CommandLine cl = MosaicMain.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new CommandRun(code, out.toString(), err.toString());
  }
}
