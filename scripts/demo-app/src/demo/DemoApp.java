package demo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.Deflater;

/**
 * The JVM that `scripts/demo` profiles: a few threads, each with its own hot path, so that a recording
 * shows distinct Java, JNI-native and kernel stacks.
 */
public final class DemoApp {
    private static volatile long sink;

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : Long.MAX_VALUE / 1000;
        List<Thread> workers = new ArrayList<>();
        workers.add(start("matrix-worker", DemoApp::multiplyMatrices));
        workers.add(start("inventory-worker", DemoApp::updateInventory));
        workers.add(start("checksum-worker", DemoApp::checksumNatively));
        workers.add(start("compress-worker", DemoApp::compressBuffers));
        workers.add(start("idle-worker", DemoApp::idle));
        System.out.println("DemoApp running, pid " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(seconds * 1000);
        System.exit(0);
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(() -> {
            while (true) {
                body.run();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Pure Java, JIT-compiled and inlined: dense double arithmetic. */
    static void multiplyMatrices() {
        int n = 96;
        double[][] a = randomMatrix(n);
        double[][] b = randomMatrix(n);
        double[][] c = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                c[i][j] = dot(a, b, i, j, n);
            }
        }
        sink += (long) c[n / 2][n / 2];
    }

    static double dot(double[][] a, double[][] b, int row, int column, int n) {
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += a[row][k] * b[k][column];
        }
        return sum;
    }

    static double[][] randomMatrix(int n) {
        double[][] m = new double[n][n];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (double[] row : m) {
            for (int j = 0; j < n; j++) {
                row[j] = random.nextDouble();
            }
        }
        return m;
    }

    /** Collections, boxing, lambdas and string building. */
    static void updateInventory() {
        Map<String, Integer> stock = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            String sku = "sku-" + (i % 997);
            stock.merge(sku, i & 7, Integer::sum);
        }
        sink += stock.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** A JNI call into this demo's own native library. */
    static void checksumNatively() {
        byte[] data = new byte[64 * 1024];
        ThreadLocalRandom.current().nextBytes(data);
        sink += NativeChecksum.fnv1a(data, 200);
    }

    /** The JDK's own JNI path into zlib. */
    static void compressBuffers() {
        byte[] input = new byte[256 * 1024];
        for (int i = 0; i < input.length; i++) {
            input[i] = (byte) ((i * 31) ^ (i >> 7));
        }
        byte[] output = new byte[input.length];
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        deflater.setInput(input);
        deflater.finish();
        while (!deflater.finished()) {
            deflater.deflate(output);
        }
        deflater.end();
    }

    /** Sleeps: CPU-time sampling must (almost) never see it. */
    static void idle() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
