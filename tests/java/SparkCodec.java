// Compresses a plain event log the way Spark's CompressionCodec does for event logs, using the
// same Java libraries, so the C decoders are tested against genuine encoder output.
// Usage: java SparkCodec <lz4|lzf|snappy|zstd> in.json out [in2 out2 ...]
// (extra pairs share one JVM start, which dominates the cost for small logs)
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import com.github.luben.zstd.ZstdOutputStream;
import com.ning.compress.lzf.LZFOutputStream;
import net.jpountz.lz4.LZ4BlockOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.SnappyOutputStream;

public final class SparkCodec {
    private static final int BLOCK = 32768;  // spark.io.compression.*.blockSize default

    static OutputStream wrap(String codec, OutputStream out) throws IOException {
        switch (codec) {
        case "lz4":
            // LZ4CompressionCodec: explicit XXHash32 checksum with lz4-java's seed (SPARK-28102),
            // syncFlush=false.
            return new LZ4BlockOutputStream(out, BLOCK,
                LZ4Factory.fastestInstance().fastCompressor(),
                XXHashFactory.fastestInstance().newStreamingHash32(0x9747B28C).asChecksum(),
                false);
        case "snappy":
            return new SnappyOutputStream(out, BLOCK);
        case "lzf":
            return new LZFOutputStream(out).setFinishBlockOnFlush(true);
        case "zstd":
            // ZStdCompressionCodec.compressedContinuousOutputStream: the BufferedOutputStream
            // sits in front of the zstd stream, and each flush closes a frame (SPARK-29322).
            return new BufferedOutputStream(
                new ZstdOutputStream(out, 1).setCloseFrameOnFlush(true), BLOCK);
        default:
            throw new IllegalArgumentException("unknown codec " + codec);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3 || args.length % 2 != 1) {
            System.err.println("usage: SparkCodec <lz4|lzf|snappy|zstd> in.json out [in2 out2 ...]");
            System.exit(2);
        }
        for (int i = 1; i < args.length; i += 2) compress(args[0], args[i], args[i + 1]);
    }

    static void compress(String codec, String inPath, String outPath) throws IOException {
        byte[] data;
        try (InputStream in = new FileInputStream(inPath)) {
            data = in.readAllBytes();
        }
        try (OutputStream os = wrap(codec, new FileOutputStream(outPath))) {
            // Like EventLoggingListener: each event is one line followed by a flush. Lines are
            // split on '\n' as raw bytes so the output round-trips byte for byte, including a
            // last line without a newline.
            int start = 0;
            for (int i = 0; i < data.length; i++) {
                if (data[i] == '\n') {
                    os.write(data, start, i + 1 - start);
                    os.flush();
                    start = i + 1;
                }
            }
            if (start < data.length) {
                os.write(data, start, data.length - start);
                os.flush();
            }
        }
    }
}
