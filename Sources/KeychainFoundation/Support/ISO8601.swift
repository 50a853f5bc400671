/// ISO-8601 UTC timestamps with milliseconds (`2026-11-22T06:50:42.123Z`), computed by hand so
/// that rendering a date needs no calendar machinery at start-up.
package enum ISO8601 {
    /// Formats milliseconds since 1970 UTC.
    package static func format(_ milliseconds: Int64) -> String {
        let (seconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let adjustedSeconds = millis < 0 ? seconds - 1 : seconds
        let ms = millis < 0 ? millis + 1000 : millis
        let (days, secondOfDay) = floorDivide(adjustedSeconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.sss]Z`; `nil` for anything else.
    package static func parse(_ text: String) -> Int64? {
        let chars = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= chars.count else { return nil }
            var value: Int64 = 0
            for index in range {
                guard (0x30...0x39).contains(chars[index]) else { return nil }
                value = value * 10 + Int64(chars[index] - 0x30)
            }
            return value
        }
        guard chars.count >= 20, chars[4] == 0x2D, chars[7] == 0x2D, chars[10] == 0x54,
            chars[13] == 0x3A, chars[16] == 0x3A, chars.last == 0x5A,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var millis: Int64 = 0
        if chars.count == 24, chars[19] == 0x2E, let fraction = number(20..<23) {
            millis = fraction
        } else if chars.count != 20 {
            return nil
        }
        let days = self.days(fromCivil: year, month, day)
        return ((days * 86_400) + hour * 3600 + minute * 60 + second) * 1000 + millis
    }

    /// Days in `month` (1-12) of `year` in the proleptic Gregorian calendar.
    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month - 1)]
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    // Howard Hinnant's days-from-civil algorithms.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
