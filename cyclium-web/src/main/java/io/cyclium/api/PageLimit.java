package io.cyclium.api;

import io.cyclium.problem.Problem;
import java.util.regex.Pattern;

/**
 * The {@code limit} query parameter of the list endpoints: absent means the default; a whole
 * number of any size is capped at the largest page; anything else (zero, negative, not ASCII
 * digits) is a 400 naming {@code limit}.
 */
final class PageLimit {

    static final int DEFAULT = 50;
    static final int MAX = 500;
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,100}");

    private PageLimit() {
    }

    static int parse(String limit) {
        if (limit == null || limit.isBlank()) {
            return DEFAULT;
        }
        String raw = limit.trim();
        if (!DIGITS.matcher(raw).matches()) {
            throw Problem.invalid("limit", "limit \"" + (raw.length() > 20 ? raw.substring(0, 20) + "…" : raw)
                    + "\" is not a whole number from 1 to " + MAX + " (larger numbers are capped at " + MAX + ")");
        }
        String significant = raw.replaceFirst("^0+", "");
        if (significant.isEmpty()) {
            throw Problem.invalid("limit", "limit must be at least 1, was 0");
        }
        // more digits than MAX has: capped without parsing (no overflow)
        return significant.length() > String.valueOf(MAX).length() ? MAX : Math.min(Integer.parseInt(significant), MAX);
    }
}
