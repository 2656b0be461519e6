/** The local AI stand-in (tools/ai-stand-in.ts), under the name the tests have always imported it by. */
export * from '../../tools/ai-stand-in';
