package io.cyclium.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** What the benchmarks share: clients working through numbered requests, and the summary of rounds. */
final class BenchClients {

    /** One numbered request (0 … count-1). */
    interface Request {
        void send(int i) throws Exception;
    }

    private BenchClients() {
    }

    /** {@code clients} threads send requests 0 … {@code count}-1 between them; the first failure is thrown. */
    static void run(int clients, int count, Request request) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                all.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        request.send(i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Median and spread (min–max) of each figure over the rounds. */
    /** The median of {@code sorted} (ascending, not empty): the middle value, or the mean of the two middle ones. */
    static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static void printSummary(String title, Map<String, List<Double>> figures) {
        System.out.println();
        System.out.println("[bench] summary over " + title + " (median, min–max):");
        figures.forEach((name, values) -> {
            List<Double> sorted = values.stream().sorted().toList();
            double median = median(sorted);
            // ratios (around 1) need two decimals, rates and microseconds none to speak of
            String f = Math.abs(median) < 10 ? "%.2f" : "%.1f";
            System.out.printf(Locale.ROOT, "  %-60s %10" + f.substring(1) + "   (" + f + "–" + f + ")%n", name, median, sorted.get(0), sorted.get(sorted.size() - 1));
        });
    }
}
