import Foundation
import LocalAuthentication
import Security
import SecurityTesting
import XCTest

/// The installed SDK's other modules, imported as a package naming no dependency imports them:
/// an in-memory keychain leased from SecurityTesting, and LAContext over its simulated device.
final class SiblingModulesTests: XCTestCase {
    func testALeasedKeychainAndItsDevice() throws {
        let lease = try SecurityTesting.Lease(inMemory: .accessGroups(["ABCDE12345.com.example.app"]))
        let context = LAContext()
        var error: NSError?
        XCTAssertTrue(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        XCTAssertEqual(context.biometryType, .faceID)
        try SecurityTesting.changeDevice(.biometryRemove)
        XCTAssertFalse(LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        XCTAssertEqual(error?.code, LAError.Code.biometryNotEnrolled.rawValue)
        withExtendedLifetime(lease) {}
    }
}
