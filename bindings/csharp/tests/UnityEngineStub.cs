// TEST STUB, NOT UNITY: the few UnityEngine types unity/CrowdBehaviour.cs uses, with the same
// names and signatures and no behaviour, so that capi/tests/csharp.rs can compile the example
// with mcs where Unity is not installed (a change to the binding that breaks the example breaks
// that test). Never ship it, never copy it into a Unity project: Unity provides the real ones.

namespace UnityEngine
{
    public class Object
    {
        public static T Instantiate<T>(T original, Transform parent) where T : Object
        {
            return original;
        }
    }

    public class Component : Object
    {
        public Transform transform { get { return null; } }
        public GameObject gameObject { get { return null; } }
    }

    public class Behaviour : Component { }

    public class MonoBehaviour : Behaviour { }

    public sealed class GameObject : Object
    {
        public Transform transform { get { return null; } }
    }

    public class Transform : Component
    {
        public Vector3 localPosition { get; set; }
        public Vector3 TransformPoint(Vector3 position) { return position; }
    }

    public struct Color
    {
        public float r, g, b, a;
        public static Color yellow { get { return new Color { r = 1f, g = 0.92f, b = 0.016f, a = 1f }; } }
    }

    public class Grid : Behaviour { }

    public struct Vector3
    {
        public float x, y, z;

        public Vector3(float x, float y, float z)
        {
            this.x = x;
            this.y = y;
            this.z = z;
        }

        public static Vector3 Lerp(Vector3 a, Vector3 b, float t)
        {
            return a;
        }
    }

    public static class Mathf
    {
        public static float Clamp01(float value)
        {
            return value;
        }
    }

    public static class Time
    {
        public static float time { get { return 0f; } }
        public static float fixedTime { get { return 0f; } }
        public static float fixedDeltaTime { get { return 0.02f; } }
    }

    public static class Application
    {
        public static string streamingAssetsPath { get { return ""; } }
        public static string persistentDataPath { get { return ""; } }
    }

    public enum KeyCode
    {
        F5 = 286,
        F9 = 290,
    }

    public static class Input
    {
        public static bool GetKeyDown(KeyCode key)
        {
            return false;
        }
    }

    public static class Debug
    {
        public static void Log(object message) { }
        public static void DrawLine(Vector3 start, Vector3 end, Color color) { }
    }

    [System.AttributeUsage(System.AttributeTargets.Field)]
    public class TooltipAttribute : System.Attribute
    {
        public TooltipAttribute(string tooltip) { }
    }
}
