package io.cyclium.timing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CronScheduleTest {

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    private static Instant next(String spec, String after) {
        return CronSchedule.parse(spec).nextAfter(at(after));
    }

    /** The first {@code count} ticks after {@code start}, each one searched from the previous. */
    private static List<String> ticks(String spec, String start, int count) {
        CronSchedule cron = CronSchedule.parse(spec);
        List<String> out = new ArrayList<>();
        Instant t = at(start);
        for (int i = 0; i < count; i++) {
            t = cron.nextAfter(t);
            out.add(t.toString());
        }
        return out;
    }

    // ---- "strictly after" ---------------------------------------------------------------------

    @Test
    void every_minute_fires_on_the_next_whole_minute() {
        assertThat(next("* * * * *", "2026-06-05T10:00:30Z")).isEqualTo(at("2026-06-05T10:01:00Z"));
    }

    @Test
    void a_time_exactly_on_a_tick_gets_the_following_tick_not_the_same_one() {
        assertThat(next("* * * * *", "2026-06-05T10:00:00Z")).isEqualTo(at("2026-06-05T10:01:00Z"));
        assertThat(next("0 * * * *", "2026-06-05T05:00:00Z")).isEqualTo(at("2026-06-05T06:00:00Z"));
    }

    @Test
    void a_millisecond_before_a_tick_gets_that_tick() {
        assertThat(next("0 * * * *", "2026-06-05T05:59:59.999Z"))
                .isEqualTo(at("2026-06-05T06:00:00Z"));
    }

    @Test
    void feeding_each_tick_back_in_walks_the_schedule_without_repeats() {
        assertThat(ticks("0 */6 * * *", "2026-06-05T00:00:00Z", 4)).containsExactly(
                "2026-06-05T06:00:00Z", "2026-06-05T12:00:00Z",
                "2026-06-05T18:00:00Z", "2026-06-06T00:00:00Z");
    }

    @Test
    void results_are_always_whole_minutes() {
        Instant tick = next("*/7 * * * *", "2026-06-05T10:03:17.123456789Z");
        assertThat(tick).isEqualTo(at("2026-06-05T10:07:00Z"));
        assertThat(tick.getNano()).isZero();
    }

    // ---- steps, ranges, lists -----------------------------------------------------------------

    @Test
    void star_step_fifteen_fires_on_the_quarter_hours() {
        assertThat(ticks("*/15 * * * *", "2026-06-05T10:07:00Z", 4)).containsExactly(
                "2026-06-05T10:15:00Z", "2026-06-05T10:30:00Z",
                "2026-06-05T10:45:00Z", "2026-06-05T11:00:00Z");
    }

    @Test
    void a_stepped_range_starts_at_its_low_end_and_stops_at_its_high_end() {
        // 1-30/5 = 1, 6, 11, 16, 21, 26
        assertThat(ticks("1-30/5 * * * *", "2026-06-05T10:20:00Z", 4)).containsExactly(
                "2026-06-05T10:21:00Z", "2026-06-05T10:26:00Z",
                "2026-06-05T11:01:00Z", "2026-06-05T11:06:00Z");
    }

    @Test
    void a_single_value_with_a_step_runs_to_the_end_of_the_field() {
        assertThat(ticks("5/20 * * * *", "2026-06-05T10:00:00Z", 4)).containsExactly(
                "2026-06-05T10:05:00Z", "2026-06-05T10:25:00Z",
                "2026-06-05T10:45:00Z", "2026-06-05T11:05:00Z");
    }

    @Test
    void lists_combine_values_in_several_fields() {
        assertThat(ticks("0,30 9,17 * * *", "2026-06-05T00:00:00Z", 5)).containsExactly(
                "2026-06-05T09:00:00Z", "2026-06-05T09:30:00Z",
                "2026-06-05T17:00:00Z", "2026-06-05T17:30:00Z",
                "2026-06-06T09:00:00Z");
    }

    @Test
    void lists_may_mix_single_values_ranges_and_steps() {
        assertThat(ticks("0 1,4-5,20-23/2 * * *", "2026-06-05T00:00:00Z", 6)).containsExactly(
                "2026-06-05T01:00:00Z", "2026-06-05T04:00:00Z", "2026-06-05T05:00:00Z",
                "2026-06-05T20:00:00Z", "2026-06-05T22:00:00Z", "2026-06-06T01:00:00Z");
    }

    @Test
    void a_restricted_hour_moves_to_the_next_day_once_it_has_passed() {
        assertThat(next("30 2 * * *", "2026-06-05T02:31:00Z")).isEqualTo(at("2026-06-06T02:30:00Z"));
    }

    // ---- names --------------------------------------------------------------------------------

    @Test
    void month_names_are_accepted_in_any_case() {
        assertThat(ticks("0 0 1 JAN,jul *", "2026-02-01T00:00:00Z", 3)).containsExactly(
                "2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-07-01T00:00:00Z");
        assertThat(next("0 0 1 Mar-May *", "2026-01-15T00:00:00Z"))
                .isEqualTo(at("2026-03-01T00:00:00Z"));
    }

    @Test
    void weekday_names_form_ranges_so_friday_evening_skips_to_monday() {
        // 2026-06-05 is a Friday
        assertThat(ticks("0 9 * * MON-FRI", "2026-06-05T10:00:00Z", 2)).containsExactly(
                "2026-06-08T09:00:00Z", "2026-06-09T09:00:00Z");
    }

    @Test
    void day_of_week_zero_seven_and_sun_all_mean_sunday() {
        // 2026-06-07 is a Sunday
        Instant expected = at("2026-06-07T00:00:00Z");
        assertThat(next("0 0 * * 0", "2026-06-05T12:00:00Z")).isEqualTo(expected);
        assertThat(next("0 0 * * 7", "2026-06-05T12:00:00Z")).isEqualTo(expected);
        assertThat(next("0 0 * * sun", "2026-06-05T12:00:00Z")).isEqualTo(expected);
    }

    @Test
    void a_weekday_range_ending_at_seven_includes_sunday() {
        // Friday, Saturday, Sunday, then Friday again
        assertThat(ticks("0 0 * * 5-7", "2026-06-04T12:00:00Z", 4)).containsExactly(
                "2026-06-05T00:00:00Z", "2026-06-06T00:00:00Z",
                "2026-06-07T00:00:00Z", "2026-06-12T00:00:00Z");
    }

    // ---- Vixie day rule -----------------------------------------------------------------------

    @Test
    void when_day_of_month_and_day_of_week_are_both_restricted_either_may_match() {
        // Mondays or the 13th (2026-06-13 is a Saturday)
        assertThat(ticks("0 0 13 * MON", "2026-06-01T12:00:00Z", 5)).containsExactly(
                "2026-06-08T00:00:00Z", "2026-06-13T00:00:00Z", "2026-06-15T00:00:00Z",
                "2026-06-22T00:00:00Z", "2026-06-29T00:00:00Z");
    }

    @Test
    void when_only_day_of_week_is_restricted_only_that_weekday_matches() {
        assertThat(ticks("0 0 * * MON", "2026-06-01T12:00:00Z", 2)).containsExactly(
                "2026-06-08T00:00:00Z", "2026-06-15T00:00:00Z");
    }

    @Test
    void when_only_day_of_month_is_restricted_only_that_day_matches() {
        assertThat(ticks("0 0 13 * *", "2026-06-01T12:00:00Z", 2)).containsExactly(
                "2026-06-13T00:00:00Z", "2026-07-13T00:00:00Z");
    }

    @Test
    void a_star_step_day_of_month_counts_as_unrestricted_and_combines_with_weekday_by_and() {
        // odd days that are also Fridays: 2026-06-05, 2026-06-19, 2026-07-03
        assertThat(ticks("0 0 */2 * FRI", "2026-06-01T00:00:00Z", 3)).containsExactly(
                "2026-06-05T00:00:00Z", "2026-06-19T00:00:00Z", "2026-07-03T00:00:00Z");
    }

    // ---- macros -------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} after {1} is {2}")
    @CsvSource({
        "@hourly,   2026-06-05T05:10:00Z, 2026-06-05T06:00:00Z",
        "@daily,    2026-06-05T05:10:00Z, 2026-06-06T00:00:00Z",
        "@midnight, 2026-06-05T05:10:00Z, 2026-06-06T00:00:00Z",
        "@weekly,   2026-06-05T05:10:00Z, 2026-06-07T00:00:00Z",
        "@monthly,  2026-06-05T05:10:00Z, 2026-07-01T00:00:00Z",
        "@yearly,   2026-06-05T05:10:00Z, 2027-01-01T00:00:00Z",
        "@annually, 2026-06-05T05:10:00Z, 2027-01-01T00:00:00Z",
        "@DAILY,    2026-06-05T05:10:00Z, 2026-06-06T00:00:00Z",
    })
    void every_macro_fires_at_its_documented_time(String macro, String after, String expected) {
        assertThat(next(macro, after)).isEqualTo(at(expected));
    }

    @ParameterizedTest(name = "{0} behaves like {1}")
    @CsvSource({
        "@yearly,   0 0 1 1 *",
        "@annually, 0 0 1 1 *",
        "@monthly,  0 0 1 * *",
        "@weekly,   0 0 * * 0",
        "@daily,    0 0 * * *",
        "@midnight, 0 0 * * *",
        "@hourly,   0 * * * *",
    })
    void every_macro_walks_the_same_ticks_as_its_expansion(String macro, String expansion) {
        assertThat(ticks(macro, "2026-12-30T22:30:00Z", 5))
                .isEqualTo(ticks(expansion, "2026-12-30T22:30:00Z", 5));
    }

    @Test
    void a_macro_keeps_its_own_spelling_as_the_spec() {
        assertThat(CronSchedule.parse("  @daily ").spec()).isEqualTo("@daily");
    }

    // ---- rollover and calendar edges ----------------------------------------------------------

    @Test
    void the_last_minute_of_the_year_rolls_into_the_next_year() {
        assertThat(next("59 23 31 12 *", "2026-12-31T23:59:00Z"))
                .isEqualTo(at("2027-12-31T23:59:00Z"));
        assertThat(next("* * * * *", "2026-12-31T23:59:00Z")).isEqualTo(at("2027-01-01T00:00:00Z"));
    }

    @Test
    void a_monthly_schedule_in_december_rolls_into_january() {
        assertThat(next("0 0 1 * *", "2026-12-15T00:00:00Z")).isEqualTo(at("2027-01-01T00:00:00Z"));
    }

    @Test
    void the_thirty_first_skips_months_that_are_shorter() {
        assertThat(ticks("0 0 31 * *", "2026-04-01T00:00:00Z", 4)).containsExactly(
                "2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z",
                "2026-08-31T00:00:00Z", "2026-10-31T00:00:00Z");
    }

    @Test
    void leap_day_schedule_from_2026_fires_on_2028_02_29() {
        assertThat(next("0 0 29 2 *", "2026-01-01T00:00:00Z")).isEqualTo(at("2028-02-29T00:00:00Z"));
        assertThat(next("0 0 29 2 *", "2028-02-29T00:00:00Z")).isEqualTo(at("2032-02-29T00:00:00Z"));
    }

    @Test
    void leap_day_schedule_skips_2100_which_is_not_a_leap_year() {
        assertThat(next("0 0 29 2 *", "2097-01-01T00:00:00Z")).isEqualTo(at("2104-02-29T00:00:00Z"));
    }

    @Test
    void times_before_the_epoch_work_too() {
        assertThat(next("0 0 1 1 *", "1969-06-01T00:00:00Z")).isEqualTo(at("1970-01-01T00:00:00Z"));
    }

    @Test
    void a_date_that_never_occurs_gives_up_with_an_error_naming_the_spec() {
        CronSchedule feb30 = CronSchedule.parse("0 0 30 2 *");
        assertThatThrownBy(() -> feb30.nextAfter(at("2026-01-01T00:00:00Z")))
                .isInstanceOf(InvalidCronException.class)
                .hasMessageStartingWith("cron \"0 0 30 2 *\": ")
                .hasMessageContaining("never occurs");
        CronSchedule april31 = CronSchedule.parse("0 0 31 4,6,9,11 *");
        assertThatThrownBy(() -> april31.nextAfter(at("2026-01-01T00:00:00Z")))
                .isInstanceOf(InvalidCronException.class)
                .hasMessageStartingWith("cron \"0 0 31 4,6,9,11 *\": ");
    }

    // ---- invalid specs ------------------------------------------------------------------------

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "61 * * * *       | minute 61 is out of range 0-59",
        "* 24 * * *       | hour 24 is out of range 0-23",
        "* * 0 * *        | day-of-month 0 is out of range 1-31",
        "* * 32 * *       | day-of-month 32 is out of range 1-31",
        "* * * 13 *       | month 13 is out of range 1-12",
        "* * * 0 *        | month 0 is out of range 1-12",
        "* * * * 8        | day-of-week 8 is out of range 0-7",
        "99999 * * * *    | minute 99999 is out of range 0-59",
        "* * * FOO *      | month \"FOO\" is not a valid value (allowed: 1-12 or JAN-DEC)",
        "* * * * MONDAY   | day-of-week \"MONDAY\" is not a valid value (allowed: 0-7 or SUN-SAT)",
        "MON * * * *      | minute \"MON\" is not a valid value (allowed: 0-59)",
        "* * * * JAN      | day-of-week \"JAN\" is not a valid value (allowed: 0-7 or SUN-SAT)",
        "*/0 * * * *      | minute step in \"*/0\" must be a whole number of at least 1",
        "*/x * * * *      | minute step in \"*/x\" must be a whole number of at least 1",
        "1-5/ * * * *     | minute step in \"1-5/\" must be a whole number of at least 1",
        "5-1 * * * *      | minute range 5-1 goes backwards; write it from low to high within 0-59",
        "* * * DEC-JAN *  | month range DEC-JAN goes backwards",
        "1,,2 * * * *     | minute list \"1,,2\" has an empty entry (allowed: 0-59)",
        "-5 * * * *       | minute has a range with a missing bound (allowed: 0-59)",
        "* * * *          | expected 5 fields (minute hour day-of-month month day-of-week) but found 4",
        "* * * * * *      | expected 5 fields (minute hour day-of-month month day-of-week) but found 6",
        "@reboot          | unknown macro @reboot (allowed: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)",
    })
    void an_invalid_spec_is_rejected_with_a_message_naming_the_spec_the_field_and_the_rule(
            String spec, String problem) {
        assertThatThrownBy(() -> CronSchedule.parse(spec))
                .isInstanceOf(InvalidCronException.class)
                .hasMessageStartingWith("cron \"" + spec + "\": " + problem)
                .satisfies(e -> {
                    InvalidCronException ice = (InvalidCronException) e;
                    assertThat(ice.spec()).isEqualTo(spec);
                    assertThat(ice.problem()).startsWith(problem);
                });
    }

    @Test
    void the_example_message_for_minute_61_reads_exactly_as_documented() {
        assertThatThrownBy(() -> CronSchedule.parse("61 * * * *"))
                .hasMessage("cron \"61 * * * *\": minute 61 is out of range 0-59");
    }

    @Test
    void an_empty_or_missing_spec_is_rejected() {
        assertThatThrownBy(() -> CronSchedule.parse("   "))
                .isInstanceOf(InvalidCronException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> CronSchedule.parse(null))
                .isInstanceOf(InvalidCronException.class)
                .hasMessageContaining("required");
    }

    @Test
    void an_invalid_cron_is_an_illegal_argument_and_unchecked() {
        assertThatThrownBy(() -> CronSchedule.parse("nonsense"))
                .isInstanceOf(IllegalArgumentException.class)
                .isInstanceOf(RuntimeException.class);
    }

    // ---- accessors ----------------------------------------------------------------------------

    @Test
    void spec_and_to_string_show_the_expression_without_surrounding_whitespace() {
        CronSchedule cron = CronSchedule.parse("  */5 9-17 * * MON-FRI\t");
        assertThat(cron.spec()).isEqualTo("*/5 9-17 * * MON-FRI");
        assertThat(cron).hasToString("CronSchedule[*/5 9-17 * * MON-FRI]");
    }

    @Test
    void fields_may_be_separated_by_several_spaces_or_tabs() {
        assertThat(next("0  12\t* *   *", "2026-06-05T00:00:00Z")).isEqualTo(at("2026-06-05T12:00:00Z"));
    }

    @Test
    void a_null_instant_is_rejected() {
        assertThatThrownBy(() -> CronSchedule.parse("* * * * *").nextAfter(null))
                .isInstanceOf(NullPointerException.class);
    }
}
