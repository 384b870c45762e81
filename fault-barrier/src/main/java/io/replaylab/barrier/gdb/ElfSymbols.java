package io.replaylab.barrier.gdb;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether an ELF file defines a function, from its dynamic or its static symbol table (a library
 * that bundles SQLite, like a Node addon, exports no {@code sqlite3_*} but keeps them in
 * {@code .symtab} when it is not stripped). 64-bit little-endian ELF only: anything else, or a
 * file that cannot be read, defines nothing.
 */
final class ElfSymbols {
    private static final int SHT_SYMTAB = 2;
    private static final int SHT_DYNSYM = 11;
    private static final Map<String, Boolean> CACHE = new ConcurrentHashMap<>();

    private ElfSymbols() {
    }

    static boolean defines(Path file, String function) {
        String key = file + "\0" + function + "\0" + file.toFile().lastModified();
        return CACHE.computeIfAbsent(key, k -> read(file, function));
    }

    private static boolean read(Path file, String function) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() < 64) {
                return false;
            }
            MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            b.order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt(0) != 0x464c457f || b.get(4) != 2 || b.get(5) != 1) { // "\177ELF", 64-bit, little-endian
                return false;
            }
            long shoff = b.getLong(0x28);
            int shentsize = Short.toUnsignedInt(b.getShort(0x3A));
            int shnum = Short.toUnsignedInt(b.getShort(0x3C));
            byte[] name = function.getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < shnum; i++) {
                int sh = (int) (shoff + (long) i * shentsize);
                int type = b.getInt(sh + 4);
                if (type != SHT_SYMTAB && type != SHT_DYNSYM) {
                    continue;
                }
                int off = (int) b.getLong(sh + 0x18);
                long size = b.getLong(sh + 0x20);
                int link = b.getInt(sh + 0x28);
                int strtab = (int) b.getLong((int) (shoff + (long) link * shentsize) + 0x18);
                for (long s = 0; s + 24 <= size; s += 24) {
                    int sym = (int) (off + s);
                    int kind = b.get(sym + 4) & 0xf;
                    if ((kind == 2 || kind == 10) && b.getShort(sym + 6) != 0 && nameIs(b, strtab + b.getInt(sym), name)) {
                        return true;
                    }
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean nameIs(MappedByteBuffer b, int at, byte[] name) {
        if (at + name.length >= b.limit()) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (b.get(at + i) != name[i]) {
                return false;
            }
        }
        return b.get(at + name.length) == 0;
    }
}
