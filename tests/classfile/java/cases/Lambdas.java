package cases;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

final class Lambdas {
    static void run() {
        int base = 7;
        IntBinaryOperator add = (x, y) -> x + y + base;
        Function<String, Integer> length = String::length;
        Supplier<List<String>> factory = ArrayList::new;
        List<String> list = factory.get();
        list.add("one");
        list.add("three");
        String joined = IntStream.rangeClosed(1, 5)
                .filter(i -> i % 2 == 1)
                .mapToObj(i -> "n" + i)
                .collect(Collectors.joining(","));
        Runnable failing = () -> {
            throw new IllegalStateException("lambda");
        };
        String failure;
        try {
            failing.run();
            failure = "none";
        } catch (IllegalStateException e) {
            failure = e.getMessage();
        }
        System.out.println("lambdas " + add.applyAsInt(1, 2) + " " + length.apply("four") + " " + list + " "
                + joined + " " + failure);
    }
}
