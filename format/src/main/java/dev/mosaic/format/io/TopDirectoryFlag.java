package dev.mosaic.format.io;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Marks a directory as the top of a directory hierarchy for the file system's allocator: Linux's
 * {@code FS_TOPDIR_FL} ({@code chattr +T}, see ioctl_iflags(2)), which ext2, ext3 and ext4 honour.
 * The subdirectories created in such a directory are spread over the file system's block groups
 * instead of being packed into the group of their parent, and each file's inode is then allocated
 * in its own subdirectory's group.
 *
 * <p>Why it matters: a tree of one directory per partition, in which every feed cycle creates a new
 * file and deletes an old one in most partitions, otherwise puts every inode of the tree in a few
 * groups; on an ext4 file system without a journal, allocating an inode then walks past every inode
 * of the group deleted in the last seconds to minutes (the allocator avoids reusing them), so each
 * file creation costs time proportional to the files deleted recently in the whole tree. Spread
 * over groups, each partition's directory sees only its own few.
 *
 * <p>Best effort: on other systems and file systems (where the ioctl fails) nothing happens; the
 * flag only guides where new directories go. Thread safety: stateless; safe for concurrent use.
 */
public final class TopDirectoryFlag {
  /** {@code FS_TOPDIR_FL} of linux/fs.h. */
  private static final int FS_TOPDIR_FL = 0x0002_0000;

  /** {@code FS_IOC_GETFLAGS}: {@code _IOR('f', 1, long)} on 64-bit Linux. */
  private static final long FS_IOC_GETFLAGS = 0x8008_6601L;

  /** {@code FS_IOC_SETFLAGS}: {@code _IOW('f', 2, long)} on 64-bit Linux. */
  private static final long FS_IOC_SETFLAGS = 0x4008_6602L;

  private static final Calls CALLS = Calls.load();

  private TopDirectoryFlag() {}

  /** The libc functions, or none where they cannot be bound (not 64-bit Linux). */
  private record Calls(MethodHandle open, MethodHandle ioctl, MethodHandle close) {
    static Calls load() {
      String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
      if (!os.startsWith("linux") || ValueLayout.ADDRESS.byteSize() != 8) {
        return null;
      }
      try {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        return new Calls(
            linker.downcallHandle(
                libc.find("open").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT)),
            linker.downcallHandle(
                libc.find("ioctl").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS),
                Linker.Option.firstVariadicArg(2)),
            linker.downcallHandle(
                libc.find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)));
      } catch (RuntimeException | LinkageError e) {
        return null; // no such functions: no flags here
      }
    }
  }

  /**
   * Sets the flag on an existing directory.
   *
   * @return whether the directory carries the flag now (false where the system or the file system
   *     has no such flag, or the directory cannot be opened)
   */
  public static boolean trySet(Path dir) {
    return withFlags(dir, true);
  }

  /**
   * Whether the directory carries the flag (false where flags cannot be read).
   *
   * @see #trySet
   */
  public static boolean isSet(Path dir) {
    return withFlags(dir, false);
  }

  /**
   * Opens the directory, reads its flags and, with {@code set}, adds the flag when it is missing.
   *
   * @return whether the directory carries the flag at the end
   */
  private static boolean withFlags(Path dir, boolean set) {
    if (CALLS == null) {
      return false;
    }
    try (Arena arena = Arena.ofConfined()) {
      int fd = (int) CALLS.open().invokeExact(arena.allocateFrom(dir.toString()), 0); // O_RDONLY
      if (fd < 0) {
        return false;
      }
      try {
        // the kernel reads and writes an int, whatever the request's size says
        MemorySegment flags = arena.allocate(ValueLayout.JAVA_LONG);
        if ((int) CALLS.ioctl().invokeExact(fd, FS_IOC_GETFLAGS, flags) != 0) {
          return false;
        }
        int current = flags.get(ValueLayout.JAVA_INT, 0);
        boolean flagged = (current & FS_TOPDIR_FL) != 0;
        if (flagged || !set) {
          return flagged;
        }
        flags.set(ValueLayout.JAVA_INT, 0, current | FS_TOPDIR_FL);
        return (int) CALLS.ioctl().invokeExact(fd, FS_IOC_SETFLAGS, flags) == 0;
      } finally {
        int ignored = (int) CALLS.close().invokeExact(fd);
      }
    } catch (Throwable t) {
      return false; // a hint: the tree works without it
    }
  }
}
