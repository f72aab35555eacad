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
        return parse(limit, MAX);
    }

    /** The same rules with a smaller largest page (the keyset-paged lists). */
    static int parse(String limit, int max) {
        return parse("limit", limit, DEFAULT, max);
    }

    /** Any whole-number query parameter: absent → {@code fallback}; larger than {@code max} → capped. */
    static int parse(String field, String value, int fallback, int max) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        String raw = value.trim();
        if (!DIGITS.matcher(raw).matches()) {
            throw Problem.invalid(field, field + " \"" + (raw.length() > 20 ? raw.substring(0, 20) + "…" : raw)
                    + "\" is not a whole number from 1 to " + max + " (larger numbers are capped at " + max + ")");
        }
        String significant = raw.replaceFirst("^0+", "");
        if (significant.isEmpty()) {
            throw Problem.invalid(field, field + " must be at least 1, was 0");
        }
        // more digits than max has: capped without parsing (no overflow)
        return significant.length() > String.valueOf(max).length() ? max : Math.min(Integer.parseInt(significant), max);
    }
}
