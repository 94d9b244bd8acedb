//! PubMed's dates, which are often partial: `<Year>`/`<Month>`/`<Day>` elements where the month
//! may be a number or a name and may be replaced by a `<Season>`, a free-text `<MedlineDate>`
//! (`2019 Jan-Feb`), and ESummary's `1965 Aug` or `2020/01/25 06:00`.
//!
//! A missing (or unreadable) day or month is taken as the first one: `2019 Jan-Feb` is
//! 2019-01-01, `1990 Spring` is 1990-01-01. A date without a readable year is `None`.

use chrono::NaiveDate;

use super::xml_tree::Element;

/// The date held by an element with `Year`, `Month`, `Day` (or `Season`) children, or a
/// `MedlineDate` child.
pub(super) fn date_from_parts(date_element: &Element) -> Option<NaiveDate> {
    let Some(year_text) = date_element.child_text("Year") else {
        return date_element.child_text("MedlineDate").and_then(|text| date_from_free_text(&text));
    };
    let year = parse_year(&year_text)?;
    let month = date_element.child_text("Month").and_then(|text| parse_month(&text));
    let day = month.and(date_element.child_text("Day")).and_then(|text| parse_day(&text));
    first_valid_date(year, month, day)
}

/// The first date readable from free text: the first four-digit year, the month right after it
/// (number or name) and the day right after that.
pub(super) fn date_from_free_text(text: &str) -> Option<NaiveDate> {
    let tokens: Vec<&str> = text
        .split(|character: char| character.is_whitespace() || matches!(character, '-' | '/' | ',' | '.'))
        .filter(|token| !token.is_empty())
        .collect();
    let year_at = tokens.iter().position(|token| parse_year(token).is_some())?;
    let year = parse_year(tokens[year_at])?;
    let month = tokens.get(year_at + 1).and_then(|token| parse_month(token));
    let day = month.and(tokens.get(year_at + 2)).and_then(|token| parse_day(token));
    first_valid_date(year, month, day)
}

fn parse_year(text: &str) -> Option<i32> {
    let trimmed = text.trim();
    let is_four_digits = trimmed.len() == 4 && trimmed.chars().all(|character| character.is_ascii_digit());
    is_four_digits.then(|| trimmed.parse().ok()).flatten()
}

/// `1`..`12`, `01`, or an English month name or its first three letters, any case.
fn parse_month(text: &str) -> Option<u32> {
    const MONTH_ABBREVIATIONS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let trimmed = text.trim();
    if let Ok(number) = trimmed.parse::<u32>() {
        return (1..=12).contains(&number).then_some(number);
    }
    let lowered = trimmed.to_ascii_lowercase();
    let abbreviation = lowered.get(..3)?;
    let index = MONTH_ABBREVIATIONS.iter().position(|month| *month == abbreviation)?;
    u32::try_from(index + 1).ok()
}

fn parse_day(text: &str) -> Option<u32> {
    let number = text.trim().parse::<u32>().ok()?;
    (1..=31).contains(&number).then_some(number)
}

/// The date itself, or the first of its month when the day does not exist (`Feb 30`), or the
/// first of the year.
fn first_valid_date(year: i32, month: Option<u32>, day: Option<u32>) -> Option<NaiveDate> {
    let month_number = month.unwrap_or(1);
    NaiveDate::from_ymd_opt(year, month_number, day.unwrap_or(1))
        .or_else(|| NaiveDate::from_ymd_opt(year, month_number, 1))
        .or_else(|| NaiveDate::from_ymd_opt(year, 1, 1))
}

#[cfg(test)]
mod tests {
    use super::super::xml_tree::parse_tree;
    use super::*;

    fn date(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(year, month, day)
    }

    fn check_parts(xml: &str, expected: Option<NaiveDate>) {
        let element = parse_tree(xml).expect("well-formed");
        assert_eq!(date_from_parts(&element), expected, "{xml}");
    }

    fn check_text(text: &str, expected: Option<NaiveDate>) {
        assert_eq!(date_from_free_text(text), expected, "{text}");
    }

    #[test]
    fn structured_dates() {
        check_parts("<PubDate><Year>2023</Year><Month>May</Month><Day>30</Day></PubDate>", date(2023, 5, 30));
        check_parts("<ArticleDate><Year>2024</Year><Month>06</Month><Day>05</Day></ArticleDate>", date(2024, 6, 5));
        check_parts("<PubDate><Year>2017</Year><Month>06</Month></PubDate>", date(2017, 6, 1));
        check_parts("<PubDate><Year>1987</Year></PubDate>", date(1987, 1, 1));
        check_parts("<PubDate><Year>1990</Year><Season>Spring</Season></PubDate>", date(1990, 1, 1));
        check_parts("<PubDate><Year>2001</Year><Month>February</Month><Day>30</Day></PubDate>", date(2001, 2, 1));
        check_parts("<PubDate><MedlineDate>2019 Jan-Feb</MedlineDate></PubDate>", date(2019, 1, 1));
        check_parts("<PubDate><Month>Jan</Month></PubDate>", None);
    }

    #[test]
    fn free_text_dates() {
        check_text("2019 Jan-Feb", date(2019, 1, 1));
        check_text("1998 Dec-1999 Jan", date(1998, 12, 1));
        check_text("2008 Nov 15-Dec 15", date(2008, 11, 15));
        check_text("2000 Spring", date(2000, 1, 1));
        check_text("1975-1976", date(1975, 1, 1));
        check_text("Summer 2001", date(2001, 1, 1));
        check_text("1965 Aug", date(1965, 8, 1));
        check_text("2020 Feb 20", date(2020, 2, 20));
        check_text("2020/01/25 06:00", date(2020, 1, 25));
        check_text("", None);
        check_text("undated", None);
    }
}
